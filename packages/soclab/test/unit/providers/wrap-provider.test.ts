import { ModelRequest } from '@aeh/models';
import { describe, expect, it } from 'vitest';
import { wrapProvider } from '../../../src/providers/wrap-provider.js';
import { callEverything, recordedAnswer, recordingProvider } from '../../helpers/recording-provider.js';

const response = recordedAnswer;

describe('wrapProvider', () => {
  const request = ModelRequest.parse({ system_prompt: 'be brief.', messages: [{ role: 'user', content: 'hi' }] });

  it('degenerate: with no overrides every call reaches the inner provider unchanged, and answers as it does', async () => {
    const inner = recordingProvider();
    const signal = new AbortController().signal;
    const answers = await callEverything(wrapProvider(inner.provider, {}), request, signal);
    expect(answers).toEqual([
      { structured_output: true },
      { input_tokens: 7, output_tokens: 0, estimated: true },
      'generate',
      'generateStructured',
      'requestTool',
      'continueAfterTool',
      'chunk',
    ]);
    expect(inner.calls.map((c) => c.call)).toEqual([
      'describeCapabilities',
      'countUsage',
      'generate',
      'generateStructured',
      'requestTool',
      'continueAfterTool',
      'stream',
    ]);
    expect(inner.calls.find((c) => c.call === 'continueAfterTool')?.args).toEqual([
      request,
      'lookup',
      { ok: 1 },
      signal,
    ]);
    for (const c of inner.calls.slice(1)) expect(c.args[0]).toBe(request);
  });

  it("keeps the inner provider's identity, read live", () => {
    const inner = recordingProvider();
    const wrapped = wrapProvider(inner.provider, {});
    expect([wrapped.providerId, wrapped.model]).toEqual(['openai', 'gpt-4o-mini']);
    inner.state.model = 'gpt-4o';
    expect(wrapped.model).toBe('gpt-4o');
  });

  it('uses an override for its call only; the others still reach the inner provider', async () => {
    const inner = recordingProvider();
    const wrapped = wrapProvider(inner.provider, { generate: async () => response('overridden') });
    expect((await wrapped.generate(request)).output_text).toBe('overridden');
    expect(inner.calls).toEqual([]);
    expect((await wrapped.requestTool(request)).output_text).toBe('requestTool');
    expect(inner.calls.map((c) => c.call)).toEqual(['requestTool']);
  });
});

describe('wrapProvider close', () => {
  it("forwards the inner provider's close (a connection pool is released), and adds none when it has none", async () => {
    const bare = recordingProvider();
    expect('close' in wrapProvider(bare.provider, {})).toBe(false);
    let closed = 0;
    const pooled = Object.assign(recordingProvider().provider, {
      close: async () => {
        closed += 1;
      },
    });
    const wrapped = wrapProvider(pooled, {}) as { close?: () => Promise<void> };
    await wrapped.close?.();
    expect(closed).toBe(1);
  });
});
