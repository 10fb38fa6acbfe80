import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildReplay, type Replay } from '../../../src/api/replay.js';
import { runStudy } from '../../../src/campaign/study.js';
import { DecisionOutcome } from '../../../src/contracts/enums.js';
import { scratchEvidence } from '../../helpers/scratch.js';

const scratch = scratchEvidence('soclab-replay-');
const replays = new Map<string, Replay>();

beforeAll(async () => {
  // ATK-010 has the harness present a forged grant; ATK-024 replays an approved grant.
  const study = await runStudy(
    { compare: false, scenarios: ['ATK-010', 'ATK-024'], out: join(scratch.dir, 'study') },
    { evidence: scratch.evidence },
  );
  for (const chain of study.scorecards.main.chains.runs) {
    const events = await scratch.evidence.events(chain.run_id);
    replays.set(chain.scenario_id, buildReplay(events, await scratch.evidence.verify(chain.run_id)));
  }
}, 60_000);

describe('replay steps read as verdicts and facts, not JSON', () => {
  it('the run-level forged grant says it was stopped and by what', () => {
    const step = replays.get('ATK-010')!.steps.find((s) => s.kind === 'harness_attack' && /forge grant/.test(s.title));
    expect(step).toBeDefined();
    expect(step!.title).toBe('Run-level attack: forge grant → stopped');
    expect(step!.summary?.verdict).toEqual({ text: 'stopped', tone: 'good' });
    const stoppedBy = step!.summary!.facts.find(([k]) => k === 'stopped by');
    expect(stoppedBy?.[1]).toMatch(/signature|unknown|grant/i);
  });

  it('every run-level attack step carries a verdict', () => {
    const attacks = [...replays.values()].flatMap((r) => r.steps.filter((s) => s.kind === 'harness_attack'));
    expect(attacks.length).toBeGreaterThanOrEqual(2);
    for (const s of attacks) expect(['stopped', 'succeeded', 'not attempted']).toContain(s.summary?.verdict?.text);
  });

  it('"Run started" lists scenario, mode and model as labelled facts; "Run finished" has the status as verdict', () => {
    const replay = replays.get('ATK-024')!;
    const start = replay.steps[0]!;
    expect(start.kind).toBe('run_started');
    const facts = new Map(start.summary!.facts);
    expect(facts.get('scenario')).toBe('ATK-024');
    expect(facts.get('mode')).toBe('protected');
    expect(facts.get('model')).toBeTruthy();
    const end = replay.steps.at(-1)!;
    expect(end.kind).toBe('run_finished');
    if (end.kind !== 'run_finished') return;
    expect(end.summary?.verdict?.text).toBe(String(end.data.status));
  });

  it('actions, model turns and the finding carry typed data the console reads by kind', () => {
    const replay = replays.get('ATK-024')!;
    const kinds = new Set(replay.steps.map((s) => s.kind));
    expect(kinds).toContain('model_turn');
    expect(kinds).toContain('action');
    for (const step of replay.steps) {
      // Narrowing on `kind` gives the step's own data shape (a compile-time check as much as a runtime one).
      if (step.kind === 'action') {
        expect(typeof step.data.proposal_id).toBe('string');
        expect(step.data.tool).toMatch(/^[a-z_]+$/);
        expect(step.title).toBe(`Action: ${step.data.tool} → ${step.data.status ?? 'recorded'}`);
        // Protected mode: every action went through a policy decision, each naming its outcome.
        expect(step.data.controlled).toBe(true);
        expect(step.data.policy_decisions.length).toBeGreaterThan(0);
        for (const d of step.data.policy_decisions) expect(DecisionOutcome.options).toContain(d.outcome);
      } else if (step.kind === 'model_turn') {
        expect(step.data.stage === null || typeof step.data.stage === 'string').toBe(true);
      } else if (step.kind === 'finding') {
        expect(Array.isArray(step.data.supported_claims)).toBe(true);
        expect(Array.isArray(step.data.unsupported_claims)).toBe(true);
      }
    }
  });
});
