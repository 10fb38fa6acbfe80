import { describe, expect, it } from 'vitest';
import {
  CapabilityUnsupportedError,
  createMockProvider,
  MalformedResponseError,
  MockProvider,
  ModelRequest,
  ProviderError,
} from '../../../src/index.js';
import { defined } from '../../helpers/defined.js';

const req = (input: Parameters<typeof ModelRequest.parse>[0]) => ModelRequest.parse(input);

describe('MockProvider', () => {
  it('chooses replies by stage, last-message substring and regex, in rule order', async () => {
    const mock = new MockProvider({
      rules: [
        { match: { stage: 'triage', lastMessage: 'urgent' }, reply: { structured: { priority: 'high' } } },
        { match: { stage: 'triage' }, reply: { structured: { priority: 'low' } } },
        { match: { lastMessage: /^ping \d+$/ }, reply: { text: 'pong' } },
      ],
    });
    const high = await mock.generateStructured(
      req({ stage: 'triage', messages: [{ role: 'user', content: 'urgent!' }] }),
    );
    const low = await mock.generateStructured(req({ stage: 'triage', messages: [{ role: 'user', content: 'meh' }] }));
    const pong = await mock.generate(req({ messages: [{ role: 'user', content: 'ping 42' }] }));
    expect(high.structured).toEqual({ priority: 'high' });
    expect(low.structured).toEqual({ priority: 'low' });
    expect(pong.output_text).toBe('pong');
    expect(pong.structured).toBeNull();
    expect(mock.calls.map((c) => c.method)).toEqual(['generateStructured', 'generateStructured', 'generate']);
    expect(mock.requests('generate')[0]?.messages[0]?.content).toBe('ping 42');
  });

  it('falls back to the queue in order, then fails naming the stage', async () => {
    const mock = new MockProvider({ queue: [{ text: 'one' }, { text: 'two' }] });
    expect((await mock.generate(req({}))).output_text).toBe('one');
    expect((await mock.generate(req({}))).output_text).toBe('two');
    await expect(mock.generate(req({ stage: 'final' }))).rejects.toThrow(/no scripted reply for stage 'final'/);
  });

  it('honours times and reply sequences (the last one repeats)', async () => {
    const mock = new MockProvider({
      rules: [{ reply: { text: 'first' }, times: 1 }, { reply: [{ text: 'a' }, { text: 'b' }] }],
    });
    const out = [];
    for (let i = 0; i < 4; i++) out.push((await mock.generate(req({}))).output_text);
    expect(out).toEqual(['first', 'a', 'b', 'b']);
  });

  it('returns tool calls with finish tool_proposal, reported usage and cost as not estimated', async () => {
    const mock = new MockProvider({
      queue: [
        {
          tool_call: { name: 'lookup_ip', arguments: { ip: '198.51.100.7' } },
          usage: { input_tokens: 10, output_tokens: 3 },
          cost_usd: 0.002,
        },
      ],
    });
    const r = await mock.requestTool(req({}));
    expect(r.finish_reason).toBe('tool_proposal');
    expect(r.tool_call).toEqual({ name: 'lookup_ip', arguments: { ip: '198.51.100.7' } });
    expect(r.usage).toEqual({ input_tokens: 10, output_tokens: 3, estimated: false });
    expect(r.estimated_cost_usd).toBe(0.002);
    expect(r.cost_is_estimated).toBe(false);
  });

  it('estimates usage and cost when the script does not report them', async () => {
    const mock = new MockProvider({ model: 'gpt-4o-mini', queue: [{ text: 'x'.repeat(40) }] });
    const r = await mock.generate(req({ system_prompt: 'y'.repeat(400) }));
    expect(r.usage).toEqual({ input_tokens: 100, output_tokens: 10, estimated: true });
    expect(r.cost_is_estimated).toBe(true);
    expect(r.estimated_cost_usd).toBeCloseTo((100 * 0.15 + 10 * 0.6) / 1e6, 9);
  });

  it('raises scripted errors with their type, and malformed structured text never guesses', async () => {
    const mock = new MockProvider({
      queue: [
        { error: { message: 'rate limited', status: 429, retryable: true } },
        { error: { type: 'malformed', message: 'bad shape' } },
        { text: 'Sure! Here you go.' },
      ],
    });
    const e1 = await mock.generate(req({})).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(ProviderError);
    expect(e1).toMatchObject({ status: 429, retryable: true, message: 'rate limited' });
    await expect(mock.generate(req({}))).rejects.toBeInstanceOf(MalformedResponseError);
    await expect(mock.generateStructured(req({}))).rejects.toThrow(/non-JSON/);
  });

  it('refuses unsupported capabilities instead of degrading', async () => {
    const mock = new MockProvider({ capabilities: { tool_calling: false, streaming: false }, fallback: 'echo' });
    await expect(mock.requestTool(req({}))).rejects.toBeInstanceOf(CapabilityUnsupportedError);
    const it = mock.stream(req({}))[Symbol.asyncIterator]();
    await expect(it.next()).rejects.toBeInstanceOf(CapabilityUnsupportedError);
  });

  it('continueAfterTool appends the result as an untrusted tool message and can match on it', async () => {
    const mock = new MockProvider({
      rules: [{ match: { toolName: 'search', lastMessage: 'found 3' }, reply: { structured: { answer: 3 } } }],
    });
    const r = await mock.continueAfterTool(req({ messages: [{ role: 'user', content: 'q' }] }), 'search', 'found 3');
    expect(r.structured).toEqual({ answer: 3 });
    const sent = defined(mock.calls[0], 'the first call').request.messages.at(-1);
    expect(sent).toMatchObject({ role: 'tool', trust: 'untrusted', tool_name: 'search', content: 'found 3' });
  });

  it('streams chunks and stops on abort during a delay', async () => {
    const mock = new MockProvider({ queue: [{ chunks: ['a', 'b', 'c'] }, { text: 'late', delay_ms: 5_000 }] });
    const parts: string[] = [];
    for await (const c of mock.stream(req({}))) parts.push(c);
    expect(parts).toEqual(['a', 'b', 'c']);
    const ctrl = new AbortController();
    const pending = mock.generate(req({}), ctrl.signal);
    ctrl.abort(new Error('case timed out'));
    await expect(pending).rejects.toThrow('case timed out');
  });

  it('echo fallback answers deterministically', async () => {
    const mock = new MockProvider({ fallback: 'echo' });
    const r = await mock.generateStructured(req({ messages: [{ role: 'user', content: 'hi' }] }));
    expect(r.output_text).toBe('echo: hi');
    expect(r.structured).toEqual({ echo: 'hi' });
  });
});

describe('createMockProvider (data-only scripts)', () => {
  it('builds rules from a suite-style script', async () => {
    const mock = createMockProvider({
      model: 'scripted-v1',
      rules: [
        { last_message_regex: '^\\d+ \\+ \\d+$', reply: { text: 'a sum' } },
        { stage: 'judge', reply: { structured: { score: 1, reason: 'ok' } } },
      ],
      fallback: 'echo',
    });
    expect((await mock.generate(req({ messages: [{ role: 'user', content: '2 + 2' }] }))).output_text).toBe('a sum');
    const judged = await mock.generateStructured(req({ stage: 'judge' }));
    expect(judged).toMatchObject({ model: 'scripted-v1', structured: { score: 1, reason: 'ok' } });
  });

  it('reports an invalid regex by its rule index', () => {
    expect(() => createMockProvider({ rules: [{ last_message_regex: '(', reply: {} }] })).toThrow(
      /rules\[0\]\.last_message_regex/,
    );
  });
});
