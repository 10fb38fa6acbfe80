import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CampaignConfigError } from '../../../src/campaign/run.js';
import { buildScorecard } from '../../../src/reports/scorecard.js';
import { renderText } from '../../../src/reports/text.js';
import { soclabIsolated } from '../../helpers/cli.js';
import { scratchEvidence } from '../../helpers/scratch.js';
import { standInCampaign } from '../../helpers/stand-ins/campaign.js';
import { startOpenAIStandIn } from '../../helpers/stand-ins/openai-chat.js';

/** Unknown prices stay unknown, protected mode refuses an unpriced model unless told, errored campaigns exit 4. */
const scratch = scratchEvidence('soclab-vendor-costs-');

describe('costs of an unpriced model', () => {
  it('stay unknown in the totals ("cost unknown for N turns"), never $0 for those turns', async () => {
    const server = await startOpenAIStandIn({ flavour: 'compatible' });
    try {
      const env = { OPENAI_COMPATIBLE_BASE_URL: `${server.url}/v1` };
      const run = await standInCampaign(
        scratch,
        'unpriced-baseline',
        { mode: 'baseline', provider: 'openai_compatible', model: 'acme-sec-7b', scenarios: ['BEN-001'] },
        env,
      );
      const turns = run.records[0]!.outcome.cost_unknown_turns;
      expect(turns).toBe(7);
      expect(run.assessment.economics).toMatchObject({ cost_usd_total: 0, cost_unknown_turns: 7 });
      const summary = renderText(buildScorecard(run));
      expect(summary).toContain('cost unknown for 7 turns (no price for the model)');
    } finally {
      await server.close();
    }
  }, 60_000);

  it('protected mode refuses to start unless a price is declared (then costs add up) or --allow-unpriced', async () => {
    const server = await startOpenAIStandIn({ flavour: 'compatible' });
    try {
      const env = { OPENAI_COMPATIBLE_BASE_URL: `${server.url}/v1` };
      const request = {
        mode: 'protected' as const,
        provider: 'openai_compatible',
        model: 'acme-sec-7b',
        scenarios: ['BEN-001'],
      };
      const refused = await standInCampaign(scratch, 'unpriced-protected', request, env).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(CampaignConfigError);
      expect((refused as Error).message).toContain('no price is known for openai_compatible/acme-sec-7b');
      expect((refused as Error).message).toContain('--price IN/OUT');
      expect(server.calls).toBe(0);
      const priced = await standInCampaign(
        scratch,
        'declared-price',
        { ...request, price: { input_per_million: 1, output_per_million: 2 } },
        env,
      );
      expect(priced.records[0]!.outcome.cost_unknown_turns).toBe(0);
      expect(priced.assessment.economics.cost_usd_total).toBeGreaterThan(0);
      const allowed = await standInCampaign(scratch, 'allowed', { ...request, allowUnpriced: true }, env);
      expect(allowed.records[0]!.outcome.cost_unknown_turns).toBe(7);
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe('soclab campaign exit codes', () => {
  it('a campaign whose runs errored says so on its first line and exits 4; a bad --price exits 2', async () => {
    const key = 'sk-standin-exit-1a2b3c4d5e6f';
    const wrong = 'sk-wrong-exit-6f5e4d3c2b1a';
    const server = await startOpenAIStandIn({ apiKey: key, echoKey: true });
    try {
      const out = join(scratch.dir, 'cli-wrong-key');
      const args = ['campaign', '--provider', 'openai', '--model', 'gpt-4o-mini', '--mode', 'baseline'];
      const r = await soclabIsolated(
        [...args, '--scenario', 'ATK-001,BEN-001', '--out', out, '--db', join(out, 'evidence.sqlite')],
        { OPENAI_API_KEY: wrong, OPENAI_BASE_URL: `${server.url}/v1` },
      );
      expect(r.code).toBe(4);
      const first = r.stdout.split('\n')[0]!;
      expect(first).toMatch(
        /^ERRORED: 2 of 2 runs ended in a provider or transport error \(not resisted, not solved\)/,
      );
      expect(first).toContain('Incorrect API key provided');
      expect(r.stdout + r.stderr).not.toContain(wrong);
      const one = await soclabIsolated(
        [
          'investigate',
          '--provider',
          'openai',
          '--model',
          'gpt-4o-mini',
          '--scenario',
          'BEN-001',
          '--db',
          join(out, 'one.sqlite'),
        ],
        { OPENAI_API_KEY: wrong, OPENAI_BASE_URL: `${server.url}/v1` },
      );
      expect(one.code).toBe(4);
      expect(one.stdout).toContain('errored');
      expect(one.stdout + one.stderr).not.toContain(wrong);
      const badPrice = await soclabIsolated([...args, '--price', 'cheap'], { OPENAI_API_KEY: key });
      expect(badPrice.code).toBe(2);
      expect(badPrice.stderr).toContain(
        "--price must be IN/OUT in USD per million tokens, e.g. 0.15/0.60 (got 'cheap')",
      );
    } finally {
      await server.close();
    }
  }, 120_000);
});
