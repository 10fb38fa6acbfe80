import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCampaign } from '../../../src/campaign/run.js';
import type { Assessment } from '../../../src/scoring/result.js';
import { scratchEvidence } from '../../helpers/scratch.js';

const scratch = scratchEvidence('soclab-repro-');

/** The assessment without the wall-clock figures it reports (latency), which profile 2.0.0 never scores. */
function scored(a: Assessment) {
  const { latency_ms_mean: _mean, latency_ms_max: _max, ...economics } = a.economics;
  return { ...a, economics };
}

describe('reproducible scores (profile 2.0.0)', () => {
  it('two campaigns of the deterministic mock give the same composite, components, levels and binding rule, bit for bit', async () => {
    const [first, second] = [
      await runCampaign({ mode: 'protected' }, { evidence: scratch.evidence, runDir: join(scratch.dir, 'a') }),
      await runCampaign({ mode: 'protected' }, { evidence: scratch.evidence, runDir: join(scratch.dir, 'b') }),
    ];
    // Different runs (ids, chains, latencies) ...
    expect(first.records[0]!.outcome.run_id).not.toBe(second.records[0]!.outcome.run_id);
    // ... the same scores, compared as exact JSON (no tolerance).
    expect(JSON.stringify(scored(second.assessment))).toBe(JSON.stringify(scored(first.assessment)));
    expect(second.assessment.composite).toBe(first.assessment.composite);
    // Latency is reported, never scored.
    const latency = first.assessment.families
      .flatMap((f) => f.components)
      .find((c) => c.name === 'latency_within_budget')!;
    expect(latency.included).toBe(false);
    // Identical behaviour shows as identical trajectory hashes across the two campaigns.
    expect(second.records.map((r) => r.outcome.trajectory_hash)).toEqual(
      first.records.map((r) => r.outcome.trajectory_hash),
    );
  });
});
