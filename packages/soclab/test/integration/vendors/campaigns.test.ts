import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratchEvidence } from '../../helpers/scratch.js';
import { outcomes, standInCampaign } from '../../helpers/stand-ins/campaign.js';
import { startVendor, VENDORS } from '../../helpers/stand-ins/vendors.js';

/**
 * Every vendor provider end to end against a stand-in that speaks its wire format: a competent model earns the
 * reference agent's outcomes, a gullible one is hijacked in baseline and stopped in protected mode; native tool calls
 * and JSON answers, vendor-reported usage, the returned model on every turn, valid chains, and the API key (which the
 * stand-ins echo in errors) in no record or chain.
 */
const scratch = scratchEvidence('soclab-vendor-campaigns-');
const SCENARIOS = ['ATK-001', 'ATK-013', 'BEN-001'];

for (const vendor of VENDORS) {
  describe(`${vendor.provider} through its wire-level stand-in`, () => {
    it('baseline and protected, competent and gullible', async () => {
      const results: Record<string, Record<string, string>> = {};
      for (const brain of ['competent', 'gullible'] as const) {
        const server = await startVendor(vendor, brain);
        try {
          for (const mode of ['baseline', 'protected'] as const) {
            const run = await standInCampaign(
              scratch,
              `${vendor.provider}-${brain}-${mode}`,
              { mode, provider: vendor.provider, model: vendor.model, scenarios: SCENARIOS, ...vendor.request },
              vendor.env(server.url, vendor.key),
            );
            results[`${brain}/${mode}`] = outcomes(run);
            for (const r of run.records) {
              expect(r.evidence.chain.valid).toBe(true);
              expect(r.outcome.unapproved_model_used).toBe(false);
              const events = await scratch.evidence.events(r.evidence.run_id);
              const turns = events
                .filter((e) => e.event_type === 'model.turn')
                .map(
                  (e) =>
                    e.payload as {
                      model: string;
                      usage: { estimated: boolean };
                      proposed_tool: string | null;
                      stage: string;
                    },
                );
              expect(turns).toHaveLength(7);
              expect(turns.every((t) => t.model === vendor.returned)).toBe(true);
              expect(turns.every((t) => t.usage.estimated === false)).toBe(true);
              // Collection stages answer with native tool calls, the action stage with JSON: both name the tool.
              expect(turns.filter((t) => t.stage !== 'form_finding').every((t) => t.proposed_tool !== null)).toBe(true);
              if (vendor.key) expect(JSON.stringify(events)).not.toContain(vendor.key);
            }
            if (vendor.key) expect(JSON.stringify(run.records)).not.toContain(vendor.key);
          }
        } finally {
          await server.close();
        }
      }
      expect(results).toEqual({
        'competent/baseline': { 'ATK-001': 'complete/held', 'ATK-013': 'complete/held', 'BEN-001': 'complete/held' },
        'competent/protected': { 'ATK-001': 'complete/held', 'ATK-013': 'complete/held', 'BEN-001': 'complete/held' },
        'gullible/baseline': {
          'ATK-001': 'complete/hijacked',
          'ATK-013': 'complete/hijacked',
          'BEN-001': 'complete/held',
        },
        'gullible/protected': { 'ATK-001': 'complete/held', 'ATK-013': 'complete/held', 'BEN-001': 'complete/held' },
      });
    }, 120_000);

    if (vendor.key) {
      it('a wrong key: every run errored with the vendor text, the key nowhere', async () => {
        const server = await startVendor(vendor, 'competent');
        const wrong = `${vendor.key!.slice(0, 6)}-WRONG-0000111122223333`;
        try {
          const run = await standInCampaign(
            scratch,
            `${vendor.provider}-wrong-key`,
            {
              mode: 'baseline',
              provider: vendor.provider,
              model: vendor.model,
              scenarios: ['BEN-001'],
              ...vendor.request,
            },
            vendor.env(server.url, wrong),
          );
          expect(outcomes(run)).toEqual({ 'BEN-001': 'errored/held' });
          expect(run.records[0]!.outcome.error).toMatch(/ProviderError: \w+ request failed/);
          expect(JSON.stringify(run.records)).not.toContain(wrong);
          expect(JSON.stringify(await scratch.evidence.events(run.records[0]!.evidence.run_id))).not.toContain(wrong);
          expect(server.calls).toBe(1);
          // Nor in any file of the harness run folder (journal, experiment.json, index).
          for (const file of readdirSync(run.runDir, { recursive: true, encoding: 'utf8' })) {
            const path = join(run.runDir, file);
            if (statSync(path).isFile()) expect(readFileSync(path).toString('latin1')).not.toContain(wrong);
          }
        } finally {
          await server.close();
        }
      }, 60_000);
    }
  });
}
