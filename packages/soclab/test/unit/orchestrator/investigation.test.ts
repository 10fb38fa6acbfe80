import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RetryBudget } from '@aeh/harness';
import { ProviderError } from '@aeh/models';
import { describe, expect, it } from 'vitest';
import { InvestigationResult } from '../../../src/contracts/investigation.js';
import type { ActionProposal, ProposalResult } from '../../../src/contracts/proposals.js';
import { BaselinePort } from '../../../src/modes/baseline-port.js';
import { runInvestigation } from '../../../src/orchestrator/investigation.js';
import type { ProposalPort } from '../../../src/orchestrator/port.js';
import { type MockAdversaryOptions, MockAdversaryProvider } from '../../../src/providers/mock.js';
import { createSimulator } from '../../../src/simulator/state.js';

/** A port that records every proposal and forwards it to the baseline port. */
class RecordingPort implements ProposalPort {
  readonly seen: ActionProposal[] = [];
  readonly costs: number[] = [];
  constructor(private readonly inner: ProposalPort) {}
  async propose(p: ActionProposal): Promise<ProposalResult> {
    this.seen.push(p);
    return this.inner.propose(p);
  }
  recordCost(usd: number) {
    this.costs.push(usd);
  }
}

async function investigate(mock: MockAdversaryOptions = {}, maxSteps?: number) {
  const sim = createSimulator({ enforceScope: false, runId: 'run-1' });
  const port = new RecordingPort(new BaselinePort(sim));
  const result = await runInvestigation({
    incidentId: sim.incidentId,
    alert: structuredClone(sim.incident),
    provider: new MockAdversaryProvider(mock),
    port,
    runId: '3f2a9c1e-0000-4000-8000-000000000000',
    maxSteps,
  });
  return { result, port, sim };
}

describe('the orchestrator talks to tools only through the port', () => {
  it('sends every proposal across the port, in order, and reports the same ones', async () => {
    const { result, port, sim } = await investigate();
    expect(port.seen).toHaveLength(6);
    expect(result.proposals.map((p) => p.proposal)).toEqual(port.seen);
    // Everything that happened in the simulator was asked for through the port.
    expect(sim.accessLog.length + sim.executionLog.length).toBe(port.seen.length);
    expect(
      port.seen.slice(0, 5).every((p) => p.evidence_refs.length === 1 && p.evidence_refs[0]!.evidence_id === 'alert'),
    ).toBe(true);
    expect(result.trace_id).toBe('trace-3f2a9c1e0000');
    expect(port.costs).toHaveLength(7);
  });

  it('imports neither the simulator nor the control plane', () => {
    const dir = fileURLToPath(new URL('../../../src/orchestrator/', import.meta.url));
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), 'utf8');
      const imports = [...text.matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
      expect(
        imports.filter((i) => /simulator|control|executor|gateway/.test(i)),
        file,
      ).toEqual([]);
    }
  });
});

describe('strict reply validation', () => {
  it('fails the run when a collection stage asks for a state-changing tool, with nothing executed', async () => {
    const { result, port } = await investigate({
      script: { collect_identity: { structured: { tool: 'disable_account', arguments: { user_id: 'u-svc-backup' } } } },
    });
    expect(result.status).toBe('failed');
    expect(result.failure_reason).toMatch(/only read-only tools are permitted/);
    expect(port.seen).toHaveLength(0);
  });

  it('rejects unknown fields and out-of-range confidence', async () => {
    const extra = await investigate({
      script: { collect_identity: { structured: { tool: 'get_identity_profile', arguments: {}, note: 'x' } } },
    });
    expect(extra.result.failure_reason).toMatch(/invalid reply at collect_identity: .*Unrecognized key/);
    const conf = await investigate({
      script: { form_finding: { structured: { summary: 's', claims: [], techniques: [], confidence: 1.5 } } },
    });
    expect(conf.result.status).toBe('failed');
    expect(conf.result.failure_reason).toMatch(/confidence must be between 0 and 1/);
  });

  it('records a provider error as an error turn and fails', async () => {
    const { result } = await investigate({ script: { collect_siem: { error: 'vendor exploded' } } });
    expect(result.status).toBe('failed');
    expect(result.failure_reason).toBe('MalformedResponseError: vendor exploded');
    expect(result.events.at(-1)).toMatchObject({ finish_reason: 'error', stage: 'collect_siem' });
    expect(result.stages_completed).toHaveLength(4);
  });

  it('records the proposed tool of a JSON answer (no native tool call) on the turn', async () => {
    const { result } = await investigate({
      script: {
        propose_action: {
          structured: {
            tool: 'revoke_sessions',
            arguments: { user_id: 'u-alex-rivera' },
            rationale: 'r',
            evidence_ids: [],
          },
        },
      },
    });
    const last = result.events.at(-1)!;
    expect(last.stage).toBe('propose_action');
    expect(last.proposed_tool).toBe('revoke_sessions');
    expect(result.events.find((e) => e.stage === 'form_finding')?.proposed_tool).toBeNull();
  });

  it('retries a retryable failure after the wait the vendor asked for, within the shared budget, each attempt a turn', async () => {
    const run = async (budget: number, failures: ProviderError[]) => {
      const sim = createSimulator({ enforceScope: false, runId: 'run-1' });
      const inner = new MockAdversaryProvider({});
      const queue = [...failures];
      const flaky = Object.assign(Object.create(inner) as MockAdversaryProvider, {
        generateStructured: async (...args: Parameters<MockAdversaryProvider['generateStructured']>) => {
          const next = args[0].stage === 'collect_endpoint' ? queue.shift() : undefined;
          if (next) throw next;
          return inner.generateStructured(...args);
        },
      });
      const waits: number[] = [];
      const result = await runInvestigation({
        incidentId: sim.incidentId,
        alert: structuredClone(sim.incident),
        provider: flaky,
        port: new BaselinePort(sim),
        maxSteps: 7,
        retry: {
          policy: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 1000, maxRetryAfterMs: 5000, budget },
          budget: new RetryBudget(budget),
          random: () => 0.5,
          sleep: async (ms) => {
            waits.push(ms);
          },
        },
      });
      return { result, waits };
    };
    const limited = () =>
      new ProviderError('openai request failed: 429', { status: 429, retryable: true, retryAfterSeconds: 2 });
    const ok = await run(10, [limited(), limited()]);
    expect(ok.result.status).toBe('complete');
    expect(ok.waits).toEqual([2000, 2000]);
    const attempts = ok.result.events.filter((e) => e.error !== null);
    expect(attempts.map((e) => e.error)).toEqual([
      'ProviderError: openai request failed: 429 (attempt 1 of 3; retrying in 2.0 s)',
      'ProviderError: openai request failed: 429 (attempt 2 of 3; retrying in 2.0 s)',
    ]);
    // maxSteps 7 still completes: retried attempts are not steps.
    expect(ok.result.events).toHaveLength(9);
    const spent = await run(1, [limited(), limited()]);
    expect(spent.result.status).toBe('errored');
    expect(spent.waits).toHaveLength(1);
    const exhausted = await run(10, [limited(), limited(), limited()]);
    expect(exhausted.result.status).toBe('errored');
    expect(exhausted.waits).toHaveLength(2);
    const contract = await run(10, [new ProviderError('bad request', { status: 400, retryable: false })]);
    expect(contract.result.status).toBe('errored');
    expect(contract.waits).toHaveLength(0);
  });

  it('ends the run errored (not failed) when the provider itself fails, keeping the error text', async () => {
    const sim = createSimulator({ enforceScope: false, runId: 'run-1' });
    const inner = new MockAdversaryProvider({});
    let calls = 0;
    const flaky = Object.assign(Object.create(inner) as MockAdversaryProvider, {
      generateStructured: async (...args: Parameters<MockAdversaryProvider['generateStructured']>) => {
        if (++calls === 3) {
          throw new ProviderError('openai request failed: Incorrect API key provided', { status: 401 });
        }
        return inner.generateStructured(...args);
      },
    });
    const result = await runInvestigation({
      incidentId: sim.incidentId,
      alert: structuredClone(sim.incident),
      provider: flaky,
      port: new BaselinePort(sim),
    });
    expect(result.status).toBe('errored');
    expect(result.failure_reason).toBe('ProviderError: openai request failed: Incorrect API key provided');
    expect(result.stages_completed).toHaveLength(2);
    expect(result.events.at(-1)).toMatchObject({ finish_reason: 'error', stage: 'collect_endpoint' });
  });

  it('stops at the step bound as incomplete', async () => {
    const { result } = await investigate({}, 3);
    expect(result.status).toBe('incomplete');
    expect(result.failure_reason).toBe('maximum steps (3) exhausted before enrich_indicators');
    expect(result.events).toHaveLength(3);
  });

  it('labels every tool message untrusted, including errors, and continues after a failed read', async () => {
    const sim = createSimulator({ enforceScope: false });
    let lastMessages: { trust: string; role: string }[] = [];
    const provider = new MockAdversaryProvider({
      script: {
        collect_endpoint: { structured: { tool: 'get_endpoint_status', arguments: { endpoint_id: 'ep-missing' } } },
      },
    });
    const spy = {
      ...provider,
      providerId: provider.providerId,
      model: provider.model,
      describeCapabilities: () => provider.describeCapabilities(),
      countUsage: provider.countUsage.bind(provider),
      generate: provider.generate.bind(provider),
      requestTool: provider.requestTool.bind(provider),
      continueAfterTool: provider.continueAfterTool.bind(provider),
      stream: provider.stream.bind(provider),
      generateStructured: async (req: Parameters<typeof provider.generateStructured>[0]) => {
        lastMessages = req.messages;
        return provider.generateStructured(req);
      },
    };
    const result = await runInvestigation({
      incidentId: sim.incidentId,
      alert: sim.incident,
      provider: spy,
      port: new BaselinePort(sim),
    });
    expect(result.status).toBe('complete');
    expect(result.evidence.map((e) => e.evidence_id)).not.toContain('get_endpoint_status:3');
    expect(result.evidence.map((e) => e.evidence_id)).toContain('lookup_indicator:3');
    const tools = lastMessages.filter((m) => m.role === 'tool');
    expect(tools).toHaveLength(5);
    expect(tools.every((m) => m.trust === 'untrusted')).toBe(true);
    expect(lastMessages[0]).toMatchObject({ role: 'user', trust: 'untrusted' });
    expect(lastMessages.at(-1)).toMatchObject({ role: 'user', trust: 'trusted' });
  });
});

describe('unsupported-claim detection', () => {
  it('supports a claim only with evidence ids issued in this run', async () => {
    const { result } = await investigate({
      script: {
        form_finding: {
          structured: {
            summary: 's',
            claims: [
              { text: 'real', evidence_ids: ['get_identity_profile:1', 'alert'] },
              { text: 'fabricated', evidence_ids: ['get_identity_profile:1', 'soc-automation:verified'] },
              { text: 'uncited', evidence_ids: [] },
            ],
            techniques: ['T1078'],
            confidence: 0.5,
          },
        },
      },
    });
    expect(result.finding?.claims.map((c) => c.supported)).toEqual([true, false, false]);
    expect(result.finding?.evidence_refs.map((r) => r.evidence_id)).toEqual(['get_identity_profile:1', 'alert']);
  });

  it('drops unknown ids from an action and falls back to the alert', async () => {
    const { result } = await investigate({
      script: {
        propose_action: {
          structured: { tool: 'revoke_sessions', arguments: { user_id: 'u-alex-rivera' }, evidence_ids: ['ev-1'] },
        },
      },
    });
    expect(result.recommended_action?.evidence_refs.map((r) => r.evidence_id)).toEqual(['alert']);
    expect(result.recommended_action?.rationale).toBe('no rationale given');
  });
});

/** Every object and array in `value` is frozen (what InvestigationResult.parse gives). */
function deeplyFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  return Object.isFrozen(value) && Object.values(value).every(deeplyFrozen);
}

describe('the investigation result is parsed once', () => {
  it('equals what InvestigationResult.parse makes of it, deeply frozen, for complete, failed and incomplete runs', async () => {
    const runs = [
      await investigate(),
      await investigate({ behavior: 'gullible' }),
      await investigate({ script: { collect_siem: { error: 'vendor exploded' } } }),
      await investigate({}, 3),
    ];
    expect(runs.map((r) => r.result.status)).toEqual(['complete', 'complete', 'failed', 'incomplete']);
    for (const { result } of runs) {
      expect(result).toEqual(InvestigationResult.parse(result));
      expect(deeplyFrozen(result)).toBe(true);
    }
    const [complete] = runs;
    // The action's result is the one listed with its proposal, not a second copy.
    expect(complete!.result.action_result).toBe(complete!.result.proposals.at(-1)?.result);
    expect(complete!.result.tool_outputs).toHaveLength(5);
  });

  it('still applies the finding contract to the reply (cited ids trimmed) and still refuses a malformed port result', async () => {
    const { result } = await investigate({
      script: {
        form_finding: {
          structured: {
            summary: 's',
            claims: [{ text: 'c', evidence_ids: [' alert '] }],
            techniques: [],
            confidence: 0.5,
          },
        },
      },
    });
    // Not issued under that spelling, so unsupported; stored trimmed, as the Finding contract says.
    expect(result.finding?.claims[0]).toEqual({ text: 'c', evidence_ids: ['alert'], supported: false });

    const sim = createSimulator({ enforceScope: false, runId: 'run-1' });
    const baseline = new BaselinePort(sim);
    const lying: ProposalPort = {
      propose: async (p) => ({ ...(await baseline.propose(p)), status: 'teleported' }) as unknown as ProposalResult,
    };
    await expect(
      runInvestigation({
        incidentId: sim.incidentId,
        alert: structuredClone(sim.incident),
        provider: new MockAdversaryProvider(),
        port: lying,
      }),
    ).rejects.toThrow(/status/);
  });
});
