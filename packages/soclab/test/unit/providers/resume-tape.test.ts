/**
 * The resume tape's storage form (providers/resume-tape.ts): the run's canary values become placeholders and come
 * back on replay; text that only looks like a placeholder stays literal; what cannot be stored without a canary or
 * a key is refused (null: the turn is not replayable); a replayed turn is served only for the same request.
 */
import { SecretScrubber } from '@aeh/harness';
import type { ModelProvider, ModelRequest, ModelResponse } from '@aeh/models';
import { describe, expect, it } from 'vitest';
import { withReproducibleScope } from '../../../src/contracts/reproducible.js';
import {
  decodeResponse,
  encodeResponse,
  runCanaries,
  type TapeEntry,
  tapeText,
  untapeText,
  withResumeTape,
} from '../../../src/providers/resume-tape.js';
import { canaryForRun } from '../../../src/simulator/state.js';

const RUN = 'run-7';
const BASES = ['CANARY-SECRET-001', 'CANARY-SECRET-201'];
const canaries = runCanaries(BASES, RUN);
const value = canaryForRun('CANARY-SECRET-001', RUN);

const response = (text: string): ModelResponse => ({
  provider: 'openai',
  model: 'gpt-4o-mini',
  finish_reason: 'stop',
  output_text: text,
  structured: { rationale: text },
  tool_call: null,
  usage: { input_tokens: 1, output_tokens: 1, estimated: false },
  latency_ms: 1,
  estimated_cost_usd: null,
  cost_is_estimated: true,
});

describe('resume tape storage form', () => {
  it('degenerate: text without canaries or placeholders is stored as it is', () => {
    expect(tapeText('', canaries)).toBe('');
    expect(tapeText('revoke sessions of u-alex-rivera', canaries)).toBe('revoke sessions of u-alex-rivera');
  });

  it("replaces the run's canary by a placeholder naming it and puts it back on replay", () => {
    const stored = tapeText(`code ${value}.`, canaries);
    expect(stored).toBe('code [[soclab-canary:CANARY-SECRET-001]].');
    expect(untapeText(stored, canaries)).toBe(`code ${value}.`);
  });

  it('hostile: a placeholder-looking literal from the model is escaped and replayed as that literal', () => {
    for (const literal of [
      '[[soclab-canary:CANARY-SECRET-001]]',
      '[[soclab-esc:canary:CANARY-SECRET-001]]',
      '[[soclab-esc:esc:x',
      `[[soclab-${value}`,
    ]) {
      const stored = tapeText(literal, canaries);
      expect(stored.includes(value)).toBe(false);
      expect(untapeText(stored, canaries)).toBe(literal);
    }
  });

  it('a placeholder naming no canary of the run is never turned into one', () => {
    expect(untapeText('[[soclab-canary:CANARY-SECRET-999]]', canaries)).toBe('[[soclab-canary:CANARY-SECRET-999]]');
  });

  it('hostile: an encoded canary or a provider key makes the turn not storable (null)', () => {
    const none = new SecretScrubber();
    expect(encodeResponse(response(Buffer.from(value).toString('base64')), canaries, none)).toBeNull();
    const key = 'sk-proj-standin-0a1b2c3d4e5f6a7b';
    expect(encodeResponse(response(`my key is ${key}`), canaries, new SecretScrubber([key]))).toBeNull();
    const stored = encodeResponse(response(`code ${value}`), canaries, none);
    expect(stored).not.toBeNull();
    expect(stored?.includes(value)).toBe(false);
    expect(decodeResponse(stored ?? '', canaries)).toEqual(response(`code ${value}`));
  });
});

describe('withResumeTape', () => {
  const request = (text: string): ModelRequest =>
    ({ run_id: RUN, messages: [{ role: 'user', content: text }] }) as unknown as ModelRequest;
  const counting = () => {
    let calls = 0;
    const provider = {
      providerId: 'openai',
      model: 'gpt-4o-mini',
      generateStructured: async () => {
        calls += 1;
        return response(`answer ${calls} ${value}`);
      },
    } as unknown as ModelProvider;
    return { provider, calls: () => calls };
  };
  const inScope = <T>(fn: () => T): T => withReproducibleScope(1, 'protected/BEN-001/0/0', 0, fn);

  it('outside a seeded scope the provider is used as it is', () => {
    const { provider } = counting();
    expect(withResumeTape(provider, { entries: [], record: () => undefined }, BASES)).toBe(provider);
  });

  it('records each answered turn, then serves the taped turns without calling the model, and later turns live', async () => {
    const first = counting();
    const tape: TapeEntry[] = [];
    await inScope(async () => {
      const p = withResumeTape(first.provider, { entries: [], record: (e) => tape.push(e), env: {} }, BASES);
      await p.generateStructured(request('a'));
      await p.generateStructured(request('b'));
    });
    expect(tape.map((e) => [e.scope, e.turn])).toEqual([
      ['protected/BEN-001/0/0', 0],
      ['protected/BEN-001/0/0', 1],
    ]);
    expect(JSON.stringify(tape).includes(value)).toBe(false);

    const again = counting();
    const recorded: TapeEntry[] = [];
    const answers = await inScope(async () => {
      const p = withResumeTape(again.provider, { entries: tape, record: (e) => recorded.push(e), env: {} }, BASES);
      return [
        await p.generateStructured(request('a')),
        await p.generateStructured(request('b')),
        await p.generateStructured(request('c')),
      ];
    });
    expect(answers.map((a) => a.output_text)).toEqual([`answer 1 ${value}`, `answer 2 ${value}`, `answer 1 ${value}`]);
    expect(again.calls()).toBe(1);
    expect(recorded.map((e) => e.turn)).toEqual([2]);
  });

  it('hostile: a different request on a taped turn is a resume_mismatch and the model is not asked', async () => {
    const first = counting();
    const tape: TapeEntry[] = [];
    await inScope(() =>
      withResumeTape(first.provider, { entries: [], record: (e) => tape.push(e), env: {} }, BASES).generateStructured(
        request('a'),
      ),
    );
    const again = counting();
    await expect(
      inScope(() =>
        withResumeTape(again.provider, { entries: tape, record: () => undefined, env: {} }, BASES).generateStructured(
          request('other'),
        ),
      ),
    ).rejects.toThrow(/resume_mismatch: run protected\/BEN-001\/0\/0 turn 0/);
    expect(again.calls()).toBe(0);
  });
});
