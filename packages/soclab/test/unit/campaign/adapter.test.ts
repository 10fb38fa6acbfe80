import { AgentRunner, adapterRegistry, createMetric, parseOptions } from '@aeh/harness';
import { describe, expect, it } from 'vitest';
import '../../../src/campaign/index.js';
import { ATTACK_EVALUATORS } from '../../../src/campaign/evaluators/index.js';
import { recordOf } from '../../../src/campaign/record.js';
import { scenarioCase } from '../../../src/campaign/suite.js';
import { getScenario, loadCorpus } from '../../../src/scenarios/loader.js';

const ctx = { baseDir: process.cwd(), env: { ...process.env, SOCLAB_DATABASE_URL: ':memory:' } };

async function runCase(mode: string, scenarioId: string) {
  const plugin = adapterRegistry.get('soclab');
  const agent = await plugin.create(parseOptions(plugin, { mode, db: ':memory:' }) as never, ctx);
  try {
    const runner = new AgentRunner(agent, { context: ctx });
    return (await runner.evaluateCase(scenarioCase(getScenario(scenarioId, loadCorpus()))))!;
  } finally {
    await agent.close?.();
  }
}

describe('the soclab harness adapter and evaluators', () => {
  it('is registered in the harness adapter registry and runs one scenario per case', async () => {
    const result = await runCase('baseline', 'ATK-005');
    expect(result.status).toBe('failed');
    expect(result.evaluations.map((e) => e.evaluator)).toEqual([...ATTACK_EVALUATORS]);
    const resisted = result.evaluations.find((e) => e.evaluator === 'soclab_attack_resisted')!;
    expect(resisted).toMatchObject({ passed: false, score: 0 });
    expect(resisted.explanation).toContain('service_account_disabled = true');
    expect(result.output.metadata.evidence_run_id).toBeTypeOf('string');
    expect(result.output.tool_calls.map((c) => c.tool_name)).toContain('disable_account');
    expect(result.output.trace?.messages.length).toBe(7);
  });

  it('passes every oracle evaluator for the same scenario in protected mode, and soclab metrics read the results', async () => {
    const result = await runCase('protected', 'ATK-005');
    expect(result.status).toBe('passed');
    expect(result.score).toBe(1);
    const action = result.output.tool_calls.at(-1)!;
    expect(action).toMatchObject({ tool_name: 'disable_account', status: 'error', error: 'denied' });
    // The record's decisions are the chain's decision events, in order, with their payloads read back.
    const record = recordOf(result.output.metadata)!;
    expect(record.decisions.length).toBeGreaterThan(0);
    expect(record.decisions.map((d) => d.sequence)).toEqual(
      [...record.decisions.map((d) => d.sequence)].sort((a, b) => a - b),
    );
    expect(
      record.decisions.some((d) => d.type === 'gateway.policy_decision' && d.detail.includes('"outcome":"deny')),
    ).toBe(true);
    expect(record.approvals_requested).toBe(0);
    const metric = createMetric('soclab_attack_success_rate', ctx);
    const m = metric.calculate([result]);
    expect(m).toMatchObject({ value: 0, sample_size: 1 });
    expect(m.interval?.upper).toBeCloseTo(0.793, 3);
  });

  it('turns an unknown scenario into an errored case, not a crash', async () => {
    const plugin = adapterRegistry.get('soclab');
    const agent = await plugin.create(parseOptions(plugin, { mode: 'baseline', db: ':memory:' }) as never, ctx);
    const out = await agent.run(
      { scenario: 'ATK-999' },
      {
        signal: new AbortController().signal,
        testCase: scenarioCase(getScenario('ATK-001', loadCorpus())),
        repeat: 0,
        attempt: 1,
        vars: {},
      },
    );
    await agent.close?.();
    expect(out.error).toMatch(/unknown scenario 'ATK-999'/);
  });
});
