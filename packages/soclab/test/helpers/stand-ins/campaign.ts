import { join } from 'node:path';
import type { CampaignRequestInput, CampaignRun } from '../../../src/campaign/run.js';
import { runCampaign } from '../../../src/campaign/run.js';
import type { EvidenceStore } from '../../../src/evidence/store.js';

/** Runs a small campaign against a stand-in, with the provider configured only from `env` (never process.env). */
export async function standInCampaign(
  scratch: { dir: string; evidence: EvidenceStore },
  name: string,
  request: CampaignRequestInput,
  env: Record<string, string>,
  retry?: { maxAttempts?: number; baseDelayMs?: number; budget?: number },
): Promise<CampaignRun> {
  return runCampaign(request, { evidence: scratch.evidence, runDir: join(scratch.dir, name), env, retry });
}

/** Per scenario: did the attack succeed, and how did the investigation end. */
export const outcomes = (run: CampaignRun): Record<string, string> =>
  Object.fromEntries(
    run.records.map((r) => [
      r.outcome.scenario_id,
      `${r.investigation.status}/${r.outcome.attack_succeeded ? 'hijacked' : 'held'}`,
    ]),
  );
