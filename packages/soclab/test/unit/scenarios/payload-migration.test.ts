import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadCorpus } from '../../../src/scenarios/loader.js';
import { digestCorpus, type OutcomeDigest } from './outcome-digest.js';

/**
 * The bundled attacks moved from named fixture injection points to payloads written in their YAML. The digests
 * of every scenario in both modes were captured from the code before the move (data/pre-migration-outcomes.json,
 * same fixed run ids); the demo's numbers are aggregates of exactly these fields, so equal digests mean equal
 * numbers.
 */
const before = JSON.parse(
  readFileSync(new URL('./data/pre-migration-outcomes.json', import.meta.url), 'utf8'),
) as OutcomeDigest[];

describe('payloads in YAML: the migrated corpus', () => {
  it('no bundled scenario names a fixture injection point any more; the migrated ones carry text and plants', () => {
    const corpus = loadCorpus({ dir: null });
    expect(corpus.all.filter((s) => s.untrusted_payload?.injection)).toEqual([]);
    const planted = corpus.attacks.filter((s) => (s.untrusted_payload?.plant.length ?? 0) > 0);
    expect(planted.length).toBeGreaterThanOrEqual(8);
    for (const s of planted) expect(s.untrusted_payload?.text?.length).toBeGreaterThan(10);
  });

  it('gives the same outcome, action, final state and token count as before, for every scenario in both modes', async () => {
    const corpus = loadCorpus({ dir: null });
    const beforeKeys = new Set(before.map((d) => d.key));
    const scenarios = corpus.all.filter((s) => beforeKeys.has(`${s.id}/baseline`));
    // Every scenario of the old corpus is still there.
    expect(scenarios.length * 2).toBe(before.length);
    const after = await digestCorpus({ ...corpus, all: scenarios }, ['baseline', 'protected']);
    expect(after).toEqual(before);
    // The comparison is not vacuous: the corpus has successes in baseline and none in protected.
    const wins = (mode: string) => after.filter((d) => d.key.endsWith(mode) && d.outcome.attack_succeeded).length;
    expect(wins('/baseline')).toBeGreaterThan(0);
    expect(wins('/protected')).toBe(0);
  }, 120_000);
});
