import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runStudy } from '../../../src/campaign/study.js';
import { scratchEvidence } from '../../helpers/scratch.js';
import { startOpenAIStandIn } from '../../helpers/stand-ins/openai-chat.js';

/*
 * `soclab compare` against an OpenAI Chat Completions stand-in on 127.0.0.1 that serves the baseline half (a
 * gullible model: hijacked by ATK-001 and ATK-013) and then goes down (HTTP 500 on every call) for the protected
 * half. Every protected run errored, so the controls stopped nothing: the paired comparison used to report both
 * hijacked scenarios as "stopped by the controls" (the errored runs were simply not hijacked).
 */
const scratch = scratchEvidence('soclab-outage-compare-');
const KEY = 'sk-standin-0b7d3e9a51c24f68';

describe('a vendor outage during the protected half of a compare', () => {
  it('reports no attack stopped by the controls, names the inconclusive scenarios, and the protected side is L1', async () => {
    let down = false;
    const server = await startOpenAIStandIn({
      apiKey: KEY,
      brain: 'gullible',
      fault: () => (down ? { status: 500, message: 'The server had an error while processing your request.' } : null),
    });
    try {
      const study = await runStudy(
        {
          compare: true,
          provider: 'openai',
          model: 'gpt-4o-mini',
          scenarios: ['ATK-001', 'ATK-013', 'BEN-001'],
          concurrency: 1,
          out: join(scratch.dir, 'compare'),
        },
        {
          evidence: scratch.evidence,
          env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${server.url}/v1` },
          retry: { maxAttempts: 1 },
          onCampaignStart: ({ label }) => {
            down = label === 'protected';
          },
        },
      );
      expect(study.baseline?.records.map((r) => [r.outcome.scenario_id, r.outcome.attack_succeeded])).toEqual([
        ['ATK-001', true],
        ['ATK-013', true],
        ['BEN-001', false],
      ]);
      expect(study.main.records.every((r) => r.investigation.status === 'errored')).toBe(true);
      expect(study.main.assessment.authority).toMatchObject({ level: 'L1', binding_rule: 'errored_or_failed_runs' });
      const paired = study.paired!;
      expect(paired).toMatchObject({ stopped: 0, introduced: 0, significant_at_5pct: false });
      expect(paired.stopped_scenarios).toEqual([]);
      expect(paired.inconclusive_scenarios).toEqual(['ATK-001', 'ATK-013']);
      // The written scorecard carries it, and the executive report does not claim the controls stopped anything.
      const card = JSON.parse(readFileSync(study.reports.main.scorecard, 'utf8')) as {
        comparison: { paired: { stopped: number; inconclusive_scenarios: string[] } };
      };
      expect(card.comparison.paired).toMatchObject({ stopped: 0, inconclusive_scenarios: ['ATK-001', 'ATK-013'] });
      const executive = readFileSync(study.reports.main.executive, 'utf8');
      expect(executive).toContain('the controls stopped 0 attacks');
      expect(executive).toContain('Inconclusive, left out of the test');
      expect(executive).toContain('ATK-001, ATK-013.');
      expect(readFileSync(study.reports.main.summary, 'utf8')).toContain('Inconclusive, left out of the test');
    } finally {
      await server.close();
    }
  });
});
