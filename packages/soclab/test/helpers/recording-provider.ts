import type { ModelProvider, ModelRequest, ModelResponse } from '@aeh/models';

// A provider stand-in for the tests of provider wrappers: it records every call it gets, with its arguments.

/** The answer the recording provider gives to a call: the call's name as the text. */
export const recordedAnswer = (text: string): ModelResponse => ({
  provider: 'openai',
  model: 'gpt-4o-mini',
  finish_reason: 'stop',
  output_text: text,
  structured: null,
  tool_call: null,
  usage: { input_tokens: 1, output_tokens: 1, estimated: false },
  latency_ms: 1,
  estimated_cost_usd: null,
  cost_is_estimated: true,
});

/** A provider that records every call (name and arguments) and answers with the call's name. */
export function recordingProvider() {
  const calls: { call: string; args: unknown[] }[] = [];
  const state = { model: 'gpt-4o-mini' };
  const answer = (call: string, ...args: unknown[]) => {
    calls.push({ call, args });
    return Promise.resolve(recordedAnswer(call));
  };
  const provider: ModelProvider = {
    providerId: 'openai',
    get model() {
      return state.model;
    },
    describeCapabilities: () => {
      calls.push({ call: 'describeCapabilities', args: [] });
      return { structured_output: true } as unknown as ReturnType<ModelProvider['describeCapabilities']>;
    },
    countUsage: (request) => {
      calls.push({ call: 'countUsage', args: [request] });
      return { input_tokens: 7, output_tokens: 0, estimated: true };
    },
    generate: (request, signal) => answer('generate', request, signal),
    generateStructured: (request, signal) => answer('generateStructured', request, signal),
    requestTool: (request, signal) => answer('requestTool', request, signal),
    continueAfterTool: (request, toolName, toolResult, signal) =>
      answer('continueAfterTool', request, toolName, toolResult, signal),
    async *stream(request, signal) {
      calls.push({ call: 'stream', args: [request, signal] });
      yield 'chunk';
    },
  };
  return { provider, calls, state };
}

/** Every call of a provider, once each, with the same request. */
export async function callEverything(p: ModelProvider, request: ModelRequest, signal?: AbortSignal) {
  const out: unknown[] = [p.describeCapabilities(), p.countUsage(request)];
  out.push((await p.generate(request, signal)).output_text);
  out.push((await p.generateStructured(request, signal)).output_text);
  out.push((await p.requestTool(request, signal)).output_text);
  out.push((await p.continueAfterTool(request, 'lookup', { ok: 1 }, signal)).output_text);
  for await (const chunk of p.stream(request, signal)) out.push(chunk);
  return out;
}
