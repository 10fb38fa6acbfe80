import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
} from '../../../../harness/test/helpers/otlp-receiver.js';
import { runCampaign } from '../../../src/campaign/run.js';
import { type RunningAgent, startDegenerateAgent } from '../../../src/conformance/agents.js';
import { needsMock } from '../../../src/contracts/scenarios.js';
import { openEvidenceStore } from '../../../src/evidence/store.js';
import { loadCorpus } from '../../../src/scenarios/loader.js';
import { startSoclabTelemetry } from '../../../src/telemetry/session.js';

/**
 * A protected-mode campaign against a real HTTP agent (the conformance "destroyer", which proposes destructive
 * actions) behind a loopback proxy that records the `traceparent` each request carries, exported to a loopback
 * OTLP/HTTP receiver.
 */

let receiver: OtlpReceiver;
let agent: RunningAgent;
let proxy: Server;
const traceparents: string[] = [];
const saved = { ...process.env };

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  agent = await startDegenerateAgent('destroyer');
  proxy = createServer(async (req, res) => {
    traceparents.push(String(req.headers.traceparent ?? ''));
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const upstream = await fetch(agent.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: String(req.headers.authorization ?? '') },
      body: Buffer.concat(chunks),
    });
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  process.env.SOCLAB_HTTP_AGENT_URL = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1/agent`;
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
  process.env.OTEL_SERVICE_NAME = '';
});

afterAll(async () => {
  process.env = saved;
  await new Promise<void>((r) => proxy.close(() => r()));
  await agent.close();
  await receiver.close();
});

const named = (spans: ReceivedSpan[], prefix: string) => spans.filter((s) => s.name.startsWith(prefix));

describe('soclab campaign exports OpenTelemetry traces', () => {
  it('scenario > stage > model turn > tool > policy decision/execution under the harness case spans; no canary', async () => {
    const ids = loadCorpus({ dir: null })
      .all.filter((s) => !needsMock(s))
      .slice(0, 2)
      .map((s) => s.id);
    const telemetry = await startSoclabTelemetry(false);
    expect(telemetry).not.toBeNull();
    const work = mkdtempSync(join(tmpdir(), 'soclab-otel-'));
    const runDir = join(work, 'run');
    const evidenceUrl = join(work, 'evidence.sqlite');
    try {
      await runCampaign({ mode: 'protected', provider: 'http', scenarios: ids }, { evidenceUrl, runDir });
    } finally {
      await telemetry?.shutdown();
    }
    const spans = receiver.spans;
    const [run] = named(spans, 'run ');
    expect(run?.parentSpanId).toBeNull();
    expect(run?.resource['service.name']).toBe('soclab');
    const cases = named(spans, 'case ');
    expect(cases.map((c) => c.attributes['harness.case.id']).sort()).toEqual([...ids].sort());
    const calls = named(spans, 'invoke_agent ');
    const scenarios = named(spans, 'scenario ');
    expect(scenarios.map((s) => s.attributes['soclab.scenario.id']).sort()).toEqual([...ids].sort());
    for (const s of scenarios) {
      expect(calls.map((c) => c.spanId)).toContain(s.parentSpanId);
      expect(s.traceId).toBe(run?.traceId);
    }
    const stages = named(spans, 'stage ');
    for (const s of stages) expect(scenarios.map((x) => x.spanId)).toContain(s.parentSpanId);
    const turns = named(spans, 'chat ');
    expect(turns.length).toBeGreaterThan(0);
    for (const t of turns) {
      expect(stages.map((s) => s.spanId)).toContain(t.parentSpanId);
      expect(t.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'http' });
    }
    const tools = named(spans, 'execute_tool ');
    expect(tools.length).toBeGreaterThan(0);
    const decisions = named(spans, 'policy_decision');
    const executions = named(spans, 'execution');
    expect(decisions.length).toBeGreaterThan(0);
    for (const d of [...decisions, ...executions]) expect(tools.map((t) => t.spanId)).toContain(d.parentSpanId);
    // The destroyer's destructive proposals are stopped by policy in protected mode.
    expect(decisions.some((d) => d.attributes['soclab.decision.outcome'] !== 'allow')).toBe(true);

    // Every request to the agent carried the traceparent of its scenario's agent-call span.
    expect(traceparents.length).toBeGreaterThan(0);
    const callParents = new Set(calls.map((c) => `00-${c.traceId}-${c.spanId}-01`));
    for (const tp of traceparents) expect(callParents.has(tp), tp).toBe(true);

    // The journal links each result to its case span.
    const results = readFileSync(join(runDir, 'journal.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; result?: { metadata: { otel?: { trace_id: string } } } })
      .filter((l) => l.type === 'result');
    expect(results.length).toBe(ids.length);
    for (const r of results) expect(r.result?.metadata.otel?.trace_id).toBe(run?.traceId);

    // The evidence chain links each run to its trace: run.started names the scenario's agent-call span.
    const store = await openEvidenceStore(evidenceUrl);
    try {
      for (const s of scenarios) {
        const [started] = await store.events(String(s.attributes['soclab.run_id']));
        expect(started?.event_type).toBe('run.started');
        expect(started?.payload.otel).toEqual({ trace_id: run?.traceId, span_id: s.parentSpanId });
      }
    } finally {
      await store.close();
    }

    // Canaries (planted in tool outputs the agent reads and echoes) never reach an exported byte.
    expect(receiver.bodies.join('')).not.toMatch(/CANARY-SECRET-/);
  });
});
