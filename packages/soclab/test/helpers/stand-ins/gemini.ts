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
 * A loopback server speaking the Gemini API's `generateContent` wire format (`POST
 * /v1beta/models/<model>:generateContent`, `x-goog-api-key` header or `?key=`), and `streamGenerateContent?alt=sse`,
 * with `functionCall` parts, `usageMetadata`, and Google's error body `{"error": {code, message, status}}`.
 */
const KNOWN_KEYS = new Set([
  'contents',
  'systemInstruction',
  'system_instruction',
  'tools',
  'toolConfig',
  'tool_config',
  'safetySettings',
  'safety_settings',
  'generationConfig',
  'generation_config',
  'cachedContent',
  'cached_content',
  'labels',
]);

const STATUS_NAMES: Record<number, { status: string; message: string }> = {
  400: { status: 'INVALID_ARGUMENT', message: 'Request contains an invalid argument.' },
  403: { status: 'PERMISSION_DENIED', message: 'The caller does not have permission' },
  404: { status: 'NOT_FOUND', message: 'Requested entity was not found.' },
  429: { status: 'RESOURCE_EXHAUSTED', message: 'Resource has been exhausted (e.g. check quota).' },
  500: {
    status: 'INTERNAL',
    message:
      'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
  },
  503: { status: 'UNAVAILABLE', message: 'The model is overloaded. Please try again later.' },
  504: { status: 'DEADLINE_EXCEEDED', message: 'Deadline expired before operation could complete.' },
};

function googleError(
  code: number,
  message?: string,
  extra: Record<string, unknown> = {},
  headers?: Record<string, string>,
): WireReply {
  const known = STATUS_NAMES[code] ?? { status: 'UNKNOWN', message: `HTTP ${code}` };
  return {
    status: code,
    json: { error: { code, message: message ?? known.message, status: known.status, ...extra } },
    headers,
  };
}

const partsText = (parts: unknown): string | null =>
  Array.isArray(parts) ? parts.map((p) => (isObject(p) && typeof p.text === 'string' ? p.text : '')).join('') : null;

function check(body: unknown): WireReply | null {
  if (!isObject(body)) return googleError(400, 'Invalid JSON payload received. Unexpected token.');
  for (const key of Object.keys(body)) {
    if (!KNOWN_KEYS.has(key))
      return googleError(400, `Invalid JSON payload received. Unknown name "${key}": Cannot find field.`);
  }
  if (!Array.isArray(body.contents) || body.contents.length === 0) {
    return googleError(400, '* GenerateContentRequest.contents: contents is not specified\n');
  }
  for (const c of body.contents) {
    if (!isObject(c) || (c.role !== undefined && c.role !== 'user' && c.role !== 'model')) {
      return googleError(400, 'Please use a valid role: user, model.');
    }
    if (partsText(c.parts) === null || (c.parts as unknown[]).length === 0) {
      return googleError(400, '* GenerateContentRequest.contents.parts: contents.parts must not be empty.\n');
    }
  }
  const config = isObject(body.generationConfig) ? body.generationConfig : {};
  const hasFunctions =
    Array.isArray(body.tools) && body.tools.some((t) => isObject(t) && Array.isArray(t.functionDeclarations));
  if (hasFunctions && config.responseMimeType === 'application/json') {
    return googleError(400, "Function calling with a response mime type: 'application/json' is unsupported");
  }
  const t = config.temperature;
  if (t !== undefined && (typeof t !== 'number' || t < 0 || t > 2)) {
    return googleError(
      400,
      '* GenerateContentRequest.generation_config.temperature: must be in the range [0.0, 2.0]\n',
    );
  }
  return null;
}

function conversationOf(body: Record<string, unknown>): Conversation {
  const turns: WireTurn[] = (body.contents as Record<string, unknown>[]).map((c) => ({
    role: c.role === 'model' ? 'assistant' : 'user',
    text: partsText(c.parts) ?? '',
  }));
  const system = isObject(body.systemInstruction) ? (partsText(body.systemInstruction.parts) ?? '') : '';
  const tools = Array.isArray(body.tools)
    ? body.tools.flatMap((t) =>
        isObject(t) && Array.isArray(t.functionDeclarations)
          ? t.functionDeclarations.map((f) => String((f as Record<string, unknown>).name))
          : [],
      )
    : [];
  return { system, turns, tools };
}

function parts(thought: Thought) {
  if (thought.kind === 'tool') {
    return {
      parts: [{ functionCall: { name: thought.name, args: thought.arguments } }],
      output: JSON.stringify(thought.arguments),
    };
  }
  return { parts: [{ text: thought.text }], output: thought.text };
}

/** Starts a Gemini API stand-in on 127.0.0.1 (base URL for the adapter: `<url>/v1beta`). */
export function startGeminiStandIn(options: StandInOptions = {}): Promise<StandIn> {
  const brain = options.brain ?? 'competent';
  return startWireServer((call: IncomingCall) => {
    const m = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(call.path);
    if (call.method !== 'POST' || !m) return googleError(404, `Method not found: ${call.method} ${call.path}`);
    const fault = options.fault?.(call.call) ?? null;
    if (fault === 'reset') return 'reset';
    if (fault) return googleError(fault.status, fault.message, {}, fault.headers);
    if (options.apiKey) {
      const presented = call.headers['x-goog-api-key'] ?? call.query.get('key');
      if (!presented) {
        return googleError(
          403,
          "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
        );
      }
      if (presented !== options.apiKey) {
        return googleError(
          400,
          options.echoKey
            ? `API key not valid: ${String(presented)}. Please pass a valid API key.`
            : 'API key not valid. Please pass a valid API key.',
          {
            details: [
              {
                '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
                reason: 'API_KEY_INVALID',
                domain: 'googleapis.com',
                metadata: { service: 'generativelanguage.googleapis.com' },
              },
            ],
          },
        );
      }
    }
    const requested = decodeURIComponent(m[1]!);
    if (options.models && !options.models.includes(requested)) {
      return googleError(
        404,
        `models/${requested} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`,
      );
    }
    const rejected = check(call.body);
    if (rejected) return rejected;
    const body = call.body as Record<string, unknown>;
    const answer = parts(think(conversationOf(body), brain));
    const prompt = tokens(JSON.stringify([body.systemInstruction, body.contents]));
    const output = tokens(answer.output);
    const usageMetadata = { promptTokenCount: prompt, candidatesTokenCount: output, totalTokenCount: prompt + output };
    const reply = {
      candidates: [{ content: { parts: answer.parts, role: 'model' }, finishReason: 'STOP', index: 0 }],
      usageMetadata,
      modelVersion: options.reportModel?.(requested) ?? requested,
      responseId: randomId('', 8),
    };
    if (m[2] === 'streamGenerateContent') {
      if (call.query.get('alt') !== 'sse')
        return googleError(400, 'streaming without alt=sse is not supported by this stand-in');
      const chunks: { data: string }[] = [];
      if ('text' in answer.parts[0]!) {
        const text = (answer.parts[0] as { text: string }).text;
        for (let i = 0; i < text.length; i += 16) {
          const last = i + 16 >= text.length;
          chunks.push({
            data: JSON.stringify({
              candidates: [
                {
                  content: { parts: [{ text: text.slice(i, i + 16) }], role: 'model' },
                  ...(last ? { finishReason: 'STOP' } : {}),
                  index: 0,
                },
              ],
              ...(last ? { usageMetadata } : {}),
              modelVersion: reply.modelVersion,
              responseId: reply.responseId,
            }),
          });
        }
      } else {
        chunks.push({ data: JSON.stringify(reply) });
      }
      return { status: 200, sse: chunks };
    }
    return { status: 200, json: reply };
  });
}
