import { type Conversation, type Thought, think, type WireTurn } from './brain.js';
import {
  type IncomingCall,
  isObject,
  randomId,
  type StandIn,
  type StandInOptions,
  startWireServer,
  tokens,
  type WireReply,
} from './server.js';

/**
 * A loopback server speaking Anthropic's Messages wire format (`POST /v1/messages`, `x-api-key` and
 * `anthropic-version` headers), non-stream and SSE (message_start … message_stop), `tool_use` blocks, usage, and the
 * documented error body `{"type": "error", "error": {type, message}}` with a `request-id` header.
 */
const KNOWN_KEYS = new Set([
  'model',
  'messages',
  'max_tokens',
  'system',
  'metadata',
  'stop_sequences',
  'stream',
  'temperature',
  'top_p',
  'top_k',
  'tools',
  'tool_choice',
  'thinking',
  'service_tier',
  'container',
  'mcp_servers',
  'context_management',
]);

const ERROR_TYPES: Record<number, { type: string; message: string }> = {
  400: { type: 'invalid_request_error', message: 'Invalid request' },
  401: { type: 'authentication_error', message: 'invalid x-api-key' },
  403: { type: 'permission_error', message: 'Your API key does not have permission to use the specified resource.' },
  404: { type: 'not_found_error', message: 'The requested resource could not be found.' },
  408: { type: 'timeout_error', message: 'Request timed out' },
  429: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' },
  500: { type: 'api_error', message: 'Internal server error' },
  529: { type: 'overloaded_error', message: 'Overloaded' },
};

function anthropicError(status: number, message?: string, headers?: Record<string, string>): WireReply {
  const known = ERROR_TYPES[status] ?? { type: 'api_error', message: `HTTP ${status}` };
  const requestId = randomId('req_', 12);
  return {
    status,
    json: { type: 'error', error: { type: known.type, message: message ?? known.message }, request_id: requestId },
    headers: { 'request-id': requestId, ...headers },
  };
}

function textOf(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  return content.map((b) => (isObject(b) && b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('');
}

function check(body: unknown): WireReply | null {
  if (!isObject(body)) return anthropicError(400, 'There was an issue with the format of your request: invalid JSON');
  for (const key of Object.keys(body)) {
    if (!KNOWN_KEYS.has(key)) return anthropicError(400, `${key}: Extra inputs are not permitted`);
  }
  if (typeof body.model !== 'string' || body.model === '') return anthropicError(400, 'model: Field required');
  if (body.max_tokens === undefined) return anthropicError(400, 'max_tokens: Field required');
  if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) {
    return anthropicError(400, 'max_tokens: Input should be greater than or equal to 1');
  }
  if (!Array.isArray(body.messages)) return anthropicError(400, 'messages: Field required');
  if (body.messages.length === 0) return anthropicError(400, 'messages: at least one message is required');
  for (const [i, m] of body.messages.entries()) {
    if (!isObject(m) || (m.role !== 'user' && m.role !== 'assistant')) {
      return anthropicError(400, `messages.${i}.role: Input should be 'user' or 'assistant'`);
    }
    if (textOf(m.content) === null) return anthropicError(400, `messages.${i}.content: Input should be a valid list`);
  }
  if ((body.messages[0] as Record<string, unknown>).role !== 'user') {
    return anthropicError(400, 'messages: first message must use the "user" role');
  }
  if (body.system !== undefined && textOf(body.system) === null) {
    return anthropicError(400, 'system: Input should be a valid string');
  }
  const t = body.temperature;
  if (t !== undefined && (typeof t !== 'number' || t < 0 || t > 1)) {
    return anthropicError(400, 'temperature: Input should be less than or equal to 1');
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return anthropicError(400, 'tools: Input should be a valid list');
    for (const [i, tool] of body.tools.entries()) {
      if (!isObject(tool) || typeof tool.name !== 'string' || !/^[a-zA-Z0-9_-]{1,128}$/.test(tool.name)) {
        return anthropicError(400, `tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
      }
      if (!isObject(tool.input_schema) || tool.input_schema.type !== 'object') {
        return anthropicError(400, `tools.${i}.custom.input_schema.type: Input should be 'object'`);
      }
    }
  }
  if (body.tool_choice !== undefined && body.tools === undefined) {
    return anthropicError(400, 'tool_choice: tool_choice may only be specified while providing tools.');
  }
  return null;
}

function conversationOf(body: Record<string, unknown>): Conversation {
  const turns: WireTurn[] = (body.messages as Record<string, unknown>[]).map((m) => ({
    role: m.role === 'assistant' ? 'assistant' : 'user',
    text: textOf(m.content) ?? '',
  }));
  const tools = Array.isArray(body.tools) ? body.tools.map((t) => String((t as Record<string, unknown>).name)) : [];
  return { system: textOf(body.system) ?? '', turns, tools };
}

function content(thought: Thought) {
  if (thought.kind === 'tool') {
    return {
      blocks: [{ type: 'tool_use', id: randomId('toolu_', 12), name: thought.name, input: thought.arguments }],
      stop: 'tool_use',
      output: JSON.stringify(thought.arguments),
    };
  }
  return { blocks: [{ type: 'text', text: thought.text }], stop: 'end_turn', output: thought.text };
}

function sse(message: Record<string, unknown>, blocks: Record<string, unknown>[], stop: string, outTokens: number) {
  const ev = (event: string, data: Record<string, unknown>) => ({
    event,
    data: JSON.stringify({ type: event, ...data }),
  });
  const usage = message.usage as Record<string, unknown>;
  const events = [
    ev('message_start', {
      message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
    }),
    ev('ping', {}),
  ];
  blocks.forEach((block, index) => {
    if (block.type === 'tool_use') {
      events.push(ev('content_block_start', { index, content_block: { ...block, input: {} } }));
      const json = JSON.stringify(block.input);
      for (let i = 0; i < json.length; i += 16) {
        events.push(
          ev('content_block_delta', {
            index,
            delta: { type: 'input_json_delta', partial_json: json.slice(i, i + 16) },
          }),
        );
      }
    } else {
      events.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      const text = String(block.text);
      for (let i = 0; i < text.length; i += 16) {
        events.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text: text.slice(i, i + 16) } }));
      }
    }
    events.push(ev('content_block_stop', { index }));
  });
  events.push(
    ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: outTokens } }),
  );
  events.push(ev('message_stop', {}));
  return events;
}

/** Starts an Anthropic Messages stand-in on 127.0.0.1 (base URL for the adapter: `<url>/v1`). */
export function startAnthropicStandIn(options: StandInOptions = {}): Promise<StandIn> {
  const brain = options.brain ?? 'competent';
  return startWireServer((call: IncomingCall) => {
    if (call.method !== 'POST' || call.path !== '/v1/messages') return anthropicError(404, 'Not Found');
    const fault = options.fault?.(call.call) ?? null;
    if (fault === 'reset') return 'reset';
    if (fault) return anthropicError(fault.status, fault.message, fault.headers);
    if (options.apiKey) {
      const presented = call.headers['x-api-key'];
      if (typeof presented !== 'string' || presented === '') return anthropicError(401, 'x-api-key header is required');
      if (presented !== options.apiKey) {
        return anthropicError(401, options.echoKey ? `invalid x-api-key: ${presented}` : 'invalid x-api-key');
      }
    }
    if (!call.headers['anthropic-version']) return anthropicError(400, 'anthropic-version: header is required');
    const rejected = check(call.body);
    if (rejected) return rejected;
    const body = call.body as Record<string, unknown>;
    const requested = body.model as string;
    if (options.models && !options.models.includes(requested)) return anthropicError(404, `model: ${requested}`);
    const answer = content(think(conversationOf(body), brain));
    const input = tokens(JSON.stringify([body.system, body.messages]));
    const output = tokens(answer.output);
    const message = {
      id: randomId('msg_', 12),
      type: 'message',
      role: 'assistant',
      model: options.reportModel?.(requested) ?? requested,
      content: answer.blocks,
      stop_reason: answer.stop,
      stop_sequence: null,
      usage: {
        input_tokens: input,
        output_tokens: output,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        service_tier: 'standard',
      },
    };
    const headers = { 'request-id': randomId('req_', 12) };
    if (body.stream === true) return { status: 200, sse: sse(message, answer.blocks, answer.stop, output), headers };
    return { status: 200, json: message, headers };
  });
}
