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
 * A loopback server speaking OpenAI's Chat Completions wire format (`POST /v1/chat/completions`), non-stream and
 * SSE, with native tool calls, usage and the documented error body `{"error": {message, type, param, code}}`.
 * Flavours: `openai` (bearer key), `compatible` (the same, e.g. a gateway), `ollama` (no key, Ollama's error
 * texts), `azure` (`/openai/deployments/<deployment>/chat/completions?api-version=…`, `api-key` header, Azure's
 * error bodies; the deployment maps to a model).
 */
export type OpenAIFlavour = 'openai' | 'compatible' | 'ollama' | 'azure';

export interface OpenAIStandInOptions extends StandInOptions {
  flavour?: OpenAIFlavour;
  /** Azure: deployment name -> model it serves. */
  deployments?: Readonly<Record<string, string>>;
}

const KNOWN_KEYS = new Set([
  'model',
  'messages',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'n',
  'stream',
  'stream_options',
  'stop',
  'presence_penalty',
  'frequency_penalty',
  'logit_bias',
  'logprobs',
  'top_logprobs',
  'seed',
  'user',
  'store',
  'metadata',
  'reasoning_effort',
  'service_tier',
  'prediction',
  'modalities',
  'audio',
  'web_search_options',
  'verbosity',
]);
const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

type ErrorBody = { message: string; type: string; param: string | null; code: string | null };

function openAIError(status: number, e: Partial<ErrorBody> & { message: string }, headers?: Record<string, string>) {
  return {
    status,
    json: {
      error: {
        message: e.message,
        type: e.type ?? 'invalid_request_error',
        param: e.param ?? null,
        code: e.code ?? null,
      },
    },
    headers,
  } satisfies WireReply;
}

const STATUS_ERRORS: Record<number, Partial<ErrorBody> & { message: string }> = {
  429: {
    message: 'Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.',
    type: 'requests',
    code: 'rate_limit_exceeded',
  },
  500: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error' },
  502: { message: 'Bad gateway.', type: 'server_error', code: 'bad_gateway' },
  503: { message: 'The engine is currently overloaded, please try again later.', type: 'server_error' },
  408: { message: 'Request timed out.', type: 'timeout' },
};

function textOf(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (content === null) return '';
  if (Array.isArray(content)) {
    return content.map((p) => (isObject(p) && p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('');
  }
  return null;
}

/** The documented request checks, in the order the API applies them; null when the body is acceptable. */
function check(body: unknown, flavour: OpenAIFlavour): WireReply | null {
  if (!isObject(body)) {
    return openAIError(400, {
      message:
        "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
    });
  }
  for (const key of Object.keys(body)) {
    if (!KNOWN_KEYS.has(key)) return openAIError(400, { message: `Unrecognized request argument supplied: ${key}` });
  }
  if (flavour !== 'azure' && (typeof body.model !== 'string' || body.model === '')) {
    return openAIError(400, { message: 'you must provide a model parameter' });
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return openAIError(400, {
      message:
        "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      param: 'messages',
      code: 'empty_array',
    });
  }
  for (const [i, m] of body.messages.entries()) {
    if (!isObject(m) || typeof m.role !== 'string' || !ROLES.has(m.role)) {
      return openAIError(400, {
        message: `Invalid value: '${isObject(m) ? String(m.role) : typeof m}'. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'.`,
        param: `messages[${i}].role`,
        code: 'invalid_value',
      });
    }
    if (m.role === 'tool') {
      const prev = body.messages.slice(0, i).some((p) => isObject(p) && Array.isArray(p.tool_calls));
      if (!prev) {
        return openAIError(400, {
          message:
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          param: `messages.[${i}].role`,
        });
      }
    }
    if (textOf(m.content) === null && !(m.role === 'assistant' && Array.isArray(m.tool_calls))) {
      return openAIError(400, {
        message: `Invalid type for 'messages[${i}].content'.`,
        param: `messages[${i}].content`,
      });
    }
  }
  const t = body.temperature;
  if (t !== undefined && (typeof t !== 'number' || t < 0 || t > 2)) {
    return openAIError(400, {
      message: `Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got ${String(t)} instead.`,
      param: 'temperature',
      code: 'decimal_above_max_value',
    });
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return openAIError(400, { message: "Invalid type for 'tools'.", param: 'tools' });
    for (const [i, tool] of body.tools.entries()) {
      const fn = isObject(tool) ? tool.function : undefined;
      if (!isObject(tool) || tool.type !== 'function' || !isObject(fn) || typeof fn.name !== 'string') {
        return openAIError(400, {
          message: `Missing required parameter: 'tools[${i}].function'.`,
          param: `tools[${i}].function`,
        });
      }
      if (!TOOL_NAME.test(fn.name)) {
        return openAIError(400, {
          message: `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
          param: `tools[${i}].function.name`,
          code: 'invalid_value',
        });
      }
    }
  }
  if (body.tool_choice !== undefined && body.tools === undefined) {
    return openAIError(400, {
      message: "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
      param: 'tool_choice',
    });
  }
  if (body.stream_options !== undefined && body.stream !== true) {
    return openAIError(400, {
      message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      param: 'stream_options',
    });
  }
  const format = body.response_format;
  if (isObject(format) && format.type === 'json_schema') {
    const spec = format.json_schema;
    if (!isObject(spec) || typeof spec.name !== 'string') {
      return openAIError(400, {
        message: "Missing required parameter: 'response_format.json_schema.name'.",
        param: 'response_format.json_schema.name',
        code: 'missing_required_parameter',
      });
    }
    const problem = spec.strict === true ? strictProblem(spec.schema, []) : null;
    if (problem) {
      return openAIError(400, {
        message: `Invalid schema for response_format '${spec.name}': ${problem}`,
        param: 'response_format',
        code: 'invalid_json_schema',
      });
    }
  } else if (isObject(format) && format.type !== 'json_object' && format.type !== 'text') {
    return openAIError(400, {
      message: `Invalid value: '${String(format.type)}'. Supported values are: 'json_object', 'json_schema', and 'text'.`,
      param: 'response_format.type',
      code: 'invalid_value',
    });
  }
  if (isObject(format) && format.type === 'json_object') {
    const all = body.messages.map((m) => textOf((m as Record<string, unknown>).content) ?? '').join('\n');
    if (!/json/i.test(all)) {
      return openAIError(400, {
        message:
          "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
        param: 'messages',
      });
    }
  }
  return null;
}

/** Structured Outputs' strict-mode rules: every object closed (`additionalProperties: false`), every key required. */
function strictProblem(schema: unknown, path: string[]): string | null {
  if (!isObject(schema)) return null;
  const where = `In context=(${path.map((p) => `'${p}'`).join(', ')})`;
  if (schema.type === 'object') {
    if (schema.additionalProperties !== false) {
      return `${where}, 'additionalProperties' is required to be supplied and to be false.`;
    }
    const props = isObject(schema.properties) ? Object.keys(schema.properties) : [];
    const required = Array.isArray(schema.required) ? schema.required : [];
    const missing = props.find((k) => !required.includes(k));
    if (missing !== undefined) {
      return `${where}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
    }
    for (const k of props) {
      const inner = strictProblem((schema.properties as Record<string, unknown>)[k], [...path, 'properties', k]);
      if (inner) return inner;
    }
  }
  if (isObject(schema.items)) return strictProblem(schema.items, [...path, 'items']);
  return null;
}

function conversationOf(body: Record<string, unknown>): Conversation {
  const messages = body.messages as Record<string, unknown>[];
  const turns: WireTurn[] = [];
  const system: string[] = [];
  for (const m of messages) {
    const text = textOf(m.content) ?? '';
    if (m.role === 'system' || m.role === 'developer') system.push(text);
    else turns.push({ role: m.role === 'assistant' ? 'assistant' : 'user', text });
  }
  const tools = Array.isArray(body.tools)
    ? body.tools.map((t) => String(((t as Record<string, unknown>).function as Record<string, unknown>).name))
    : [];
  return { system: system.join('\n'), turns, tools };
}

function message(thought: Thought) {
  if (thought.kind === 'tool') {
    return {
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: randomId('call_'),
            type: 'function',
            function: { name: thought.name, arguments: JSON.stringify(thought.arguments) },
          },
        ],
        refusal: null,
        annotations: [],
      },
      finish_reason: 'tool_calls',
      output: JSON.stringify(thought.arguments),
    };
  }
  return {
    message: { role: 'assistant', content: thought.text, refusal: null, annotations: [] },
    finish_reason: 'stop',
    output: thought.text,
  };
}

function sse(id: string, created: number, model: string, thought: Thought, usage: unknown, withUsage: boolean) {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      system_fingerprint: 'fp_standin',
      choices,
      ...extra,
    });
  const events: { data: string }[] = [
    {
      data: chunk([
        { index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null },
      ]),
    },
  ];
  if (thought.kind === 'tool') {
    const args = JSON.stringify(thought.arguments);
    events.push({
      data: chunk([
        {
          index: 0,
          delta: {
            tool_calls: [
              { index: 0, id: randomId('call_'), type: 'function', function: { name: thought.name, arguments: '' } },
            ],
          },
          logprobs: null,
          finish_reason: null,
        },
      ]),
    });
    for (let i = 0; i < args.length; i += 16) {
      events.push({
        data: chunk([
          {
            index: 0,
            delta: { tool_calls: [{ index: 0, function: { arguments: args.slice(i, i + 16) } }] },
            logprobs: null,
            finish_reason: null,
          },
        ]),
      });
    }
  } else {
    for (let i = 0; i < thought.text.length; i += 16) {
      events.push({
        data: chunk([
          { index: 0, delta: { content: thought.text.slice(i, i + 16) }, logprobs: null, finish_reason: null },
        ]),
      });
    }
  }
  events.push({
    data: chunk([
      { index: 0, delta: {}, logprobs: null, finish_reason: thought.kind === 'tool' ? 'tool_calls' : 'stop' },
    ]),
  });
  if (withUsage) events.push({ data: chunk([], { usage }) });
  events.push({ data: '[DONE]' });
  return events;
}

/** Starts an OpenAI Chat Completions stand-in on 127.0.0.1 (see the file comment for flavours). */
export function startOpenAIStandIn(options: OpenAIStandInOptions = {}): Promise<StandIn> {
  const flavour = options.flavour ?? 'openai';
  const brain = options.brain ?? 'competent';
  return startWireServer((call: IncomingCall) => {
    let requested: string | undefined;
    if (flavour === 'azure') {
      const m = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/.exec(call.path);
      if (call.method !== 'POST' || !m)
        return { status: 404, json: { error: { code: '404', message: 'Resource not found' } } };
      if (!call.query.get('api-version')) {
        return { status: 404, json: { error: { code: '404', message: 'Resource not found' } } };
      }
      const deployment = decodeURIComponent(m[1]!);
      const deployments = options.deployments ?? {};
      requested = Object.hasOwn(deployments, deployment) ? deployments[deployment] : undefined;
    } else if (call.method !== 'POST' || call.path !== '/v1/chat/completions') {
      return openAIError(404, { message: `Invalid URL (${call.method} ${call.path})` });
    }

    const fault = options.fault?.(call.call) ?? null;
    if (fault === 'reset') return 'reset';
    if (fault) {
      const known = STATUS_ERRORS[fault.status] ?? {
        message: fault.message ?? `HTTP ${fault.status}`,
        type: 'server_error',
      };
      if (flavour === 'azure') {
        return {
          status: fault.status,
          json: { error: { code: String(fault.status), message: known.message } },
          headers: fault.headers,
        };
      }
      return openAIError(fault.status, { ...known, message: fault.message ?? known.message }, fault.headers);
    }

    if (options.apiKey) {
      if (flavour === 'azure') {
        if (call.headers['api-key'] !== options.apiKey) {
          return {
            status: 401,
            json: {
              error: {
                code: '401',
                message: `Access denied due to invalid subscription key or wrong API endpoint${options.echoKey ? ` (key ${String(call.headers['api-key'])})` : ''}. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.`,
              },
            },
          };
        }
      } else {
        const auth = call.headers.authorization;
        if (!auth) {
          return openAIError(401, {
            message:
              "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
          });
        }
        const presented = auth.replace(/^Bearer /, '');
        if (presented !== options.apiKey) {
          const shown = options.echoKey ? presented : `${presented.slice(0, 3)}${'*'.repeat(8)}${presented.slice(-4)}`;
          return openAIError(401, {
            message: `Incorrect API key provided: ${shown}. You can find your API key at https://platform.openai.com/account/api-keys.`,
            code: 'invalid_api_key',
          });
        }
      }
    }

    const rejected = check(call.body, flavour);
    if (rejected) return rejected;
    const body = call.body as Record<string, unknown>;
    if (flavour === 'azure') {
      if (!requested) {
        return {
          status: 404,
          json: {
            error: {
              code: 'DeploymentNotFound',
              message:
                'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
            },
          },
        };
      }
    } else {
      requested = body.model as string;
      if (options.models && !options.models.includes(requested)) {
        if (flavour === 'ollama') {
          return openAIError(404, {
            message: `model "${requested}" not found, try pulling it first`,
            type: 'api_error',
          });
        }
        return openAIError(404, {
          message: `The model \`${requested}\` does not exist or you do not have access to it.`,
          code: 'model_not_found',
        });
      }
    }
    const model = options.reportModel?.(requested) ?? requested;
    const thought = think(conversationOf(body), brain);
    const answer = message(thought);
    const prompt = tokens(JSON.stringify(body.messages));
    const completion = tokens(answer.output);
    const usage = {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    };
    const id = randomId('chatcmpl-');
    const created = Math.floor(Date.now() / 1000);
    if (body.stream === true) {
      const withUsage = isObject(body.stream_options) && body.stream_options.include_usage === true;
      return { status: 200, sse: sse(id, created, model, thought, usage, withUsage) };
    }
    return {
      status: 200,
      json: {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [{ index: 0, message: answer.message, logprobs: null, finish_reason: answer.finish_reason }],
        usage,
        service_tier: 'default',
        system_fingerprint: 'fp_standin',
      },
    };
  });
}
