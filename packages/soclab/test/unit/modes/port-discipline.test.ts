import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../../src/modes/protected.js';
import { openEvidenceStore, type SqlEvidenceStore } from '../../../src/evidence/store.js';
import { createProtectedSession } from '../../../src/modes/protected-session.js';
import { runInvestigation } from '../../../src/orchestrator/investigation.js';
import { MockAdversaryProvider } from '../../../src/providers/mock.js';
import { loadCorpus, type ScenarioCorpus } from '../../../src/scenarios/loader.js';
import { runScenario } from '../../../src/scenarios/runner.js';
import { createSimulator } from '../../../src/simulator/state.js';

const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/** Module specifiers a file imports at runtime (type-only imports erased). */
function valueImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs: string[] = [];
  for (const m of text.matchAll(/^\s*(import|export)\s+(type\s+)?([^;]*?)\s+from\s+'([^']+)'/gms)) {
    if (m[2]) continue;
    const clause = m[3] ?? '';
    // `import { type A, type B } from` is type-only too.
    const names = /^\{([^}]*)\}$/.exec(clause.trim())?.[1];
    if (names?.split(',').every((n) => n.trim() === '' || n.trim().startsWith('type '))) continue;
    specs.push(m[4] ?? '');
  }
  for (const m of text.matchAll(/^\s*import\s+'([^']+)'/gm)) specs.push(m[1] ?? '');
  return specs;
}

describe('port discipline (static)', () => {
  it('the orchestrator imports neither the simulator nor the control plane (only the port type)', () => {
    for (const file of sourceFiles(join(SRC, 'orchestrator'))) {
      for (const spec of valueImports(file)) {
        expect(spec, relative(SRC, file)).not.toMatch(/simulator|control|executor|gateway/);
      }
    }
  });

  it('in the control plane and the modes only the executor (and the baseline port) may load the simulator', () => {
    const files = [...sourceFiles(join(SRC, 'control')), ...sourceFiles(join(SRC, 'modes'))];
    // Degenerate check first: the protected session and the run-level attacks are among the files checked.
    expect(files.map((f) => relative(SRC, f))).toContain(join('modes', 'protected-session.ts'));
    for (const file of files) {
      const name = relative(SRC, file);
      if (name === join('control', 'executor.ts') || name === join('modes', 'baseline-port.ts')) continue;
      for (const spec of valueImports(file)) expect(spec, name).not.toMatch(/simulator/);
    }
    const executor = valueImports(join(SRC, 'control', 'executor.ts'));
    expect(executor).toContain('../simulator/tools.js');
  });
});

describe('port discipline (runtime)', () => {
  let corpus: ScenarioCorpus;
  let store: SqlEvidenceStore;
  beforeAll(async () => {
    corpus = loadCorpus();
    store = await openEvidenceStore(':memory:');
  });
  afterAll(async () => {
    await store?.close();
  });

  it('every proposal of every protected run crossed the gateway, in order', async () => {
    for (const scenario of [...corpus.attacks, ...corpus.benign]) {
      const result = await runScenario({ scenario, mode: 'protected', corpus, evidence: store });
      const events = await store.events(result.run_id);
      const received = events
        .filter((e) => e.event_type === 'gateway.proposal_received')
        .map((e) => e.payload.proposal_id);
      const proposed = result.investigation.proposals.map((p) => p.proposal.proposal_id);
      expect(received.slice(0, proposed.length), scenario.id).toEqual(proposed);
      for (const p of result.investigation.proposals) expect(p.result.controlled, scenario.id).toBe(true);
      // Each execution on the chain names a grant the gateway issued (recorded before it).
      const issued = new Map<unknown, number>();
      for (const e of events) {
        if (e.event_type === 'gateway.grant_issued') {
          issued.set((e.payload.detail as { grant_id: string }).grant_id, e.sequence);
        }
        if (e.event_type === 'executor.execution') {
          const at = issued.get(e.payload.grant_id);
          expect(at, `${scenario.id} execution without an issued grant`).toBeDefined();
          expect(at!).toBeLessThan(e.sequence);
        }
      }
      const executions = events.filter((e) => e.event_type === 'executor.execution').length;
      expect(executions, scenario.id).toBe(result.final_state.reads + result.final_state.state_changes);
    }
  });

  it('the simulator changes only through the executor, and only with grants the gateway issued after a decision', async () => {
    for (const behavior of ['grounded', 'gullible'] as const) {
      const runId = randomUUID();
      const simulator = createSimulator({ enforceScope: true, runId, injections: ['authority_claim'] });
      const session = createProtectedSession({ simulator, runId, approver: 'rubber_stamp' });
      const result = await runInvestigation({
        incidentId: simulator.incidentId,
        alert: structuredClone(simulator.incident),
        provider: new MockAdversaryProvider({ behavior }),
        port: session.port,
        runId,
      });
      expect(result.status).toBe('complete');
      const executions = session.executor.executions;
      // Every read and every state change in the simulator is one executor execution.
      expect(simulator.accessLog.length + simulator.executionLog.length).toBe(executions.length);
      const events = session.gateway.events;
      for (const execution of executions) {
        const grant = session.gateway.grants.get(execution.grant_id);
        expect(grant, execution.tool).toBeDefined();
        const forProposal = events.filter((e) => e.proposal_id === execution.proposal_id).map((e) => e.kind);
        expect(forProposal.indexOf('policy_decision')).toBeGreaterThanOrEqual(0);
        expect(forProposal.indexOf('policy_decision')).toBeLessThan(forProposal.indexOf('grant_issued'));
      }
      // Denied proposals left no trace in the simulator.
      const denied = result.proposals.filter((p) => p.result.status === 'denied').map((p) => p.proposal.proposal_id);
      for (const id of denied) expect(executions.some((e) => e.proposal_id === id)).toBe(false);
    }
  });

  it('protected mode refuses a simulator without scope isolation', () => {
    const runId = randomUUID();
    expect(() => createProtectedSession({ simulator: createSimulator({ enforceScope: false, runId }), runId })).toThrow(
      /scope isolation/,
    );
  });
});
