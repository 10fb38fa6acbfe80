import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretForms } from '../../../src/secrets/scrubber.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../../helpers/otlp-receiver.js';
import { json, listen, readBody, type TestServer } from '../adapters/servers.js';

/**
 * `harness run` with tracing on, against a real loopback OTLP/HTTP receiver and a real HTTP agent that records
 * the `traceparent` it was sent. The agent echoes its bearer token in its answers and errors, so any
 * unscrubbed attribute would carry it to the tracing back-end.
 */

const root = fileURLToPath(new URL('../../../../../', import.meta.url));
const bin = join(root, 'packages/harness/bin/harness.js');
const TOKEN = 'otel-bearer-3c9f1e77-NEVER-EXPORT';

function harness(
  args: string[],
  env: Record<string, string>,
  withBin = true,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, withBin ? [bin, ...args] : args, {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1', CI: '', OTEL_EXPORTER_OTLP_ENDPOINT: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.on('close', (code) => resolve({ code, out }));
  });
}

let agent: TestServer;
let receiver: OtlpReceiver;
const traceparents: string[] = [];

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  agent = await listen(async (req, res) => {
    const body = JSON.parse((await readBody(req)) || '{}') as { question?: string };
    traceparents.push(String(req.headers.traceparent ?? ''));
    const auth = String(req.headers.authorization);
    if (body.question?.includes('boom')) {
      res.writeHead(500, { 'content-type': 'text/plain' });
      return res.end(`internal error for ${auth}`);
    }
    return json(res, 200, {
      answer: `42 (asked with ${auth})`,
      tool_calls: [
        { tool_name: 'calculator', args: { token: auth }, duration: 0.01 },
        { tool_name: 'lookup', args: {}, status: 'error', error: `denied for ${auth}`, duration: 0.01 },
      ],
      usage: { input_tokens: 12, output_tokens: 5 },
    });
  });
});

afterAll(async () => {
  await agent.close();
  await receiver.close();
});

const byName = (spans: ReceivedSpan[], prefix: string) => spans.filter((s) => s.name.startsWith(prefix));

describe('harness run exports OpenTelemetry traces', () => {
  it('with no endpoint and no --otel nothing is exported, no trace id is recorded, no OpenTelemetry module loads', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harness-otel-off-'));
    writeFileSync(join(dir, 'suite.yaml'), suite(agent.url));
    const imports = join(dir, 'imports.txt');
    const recorder = join(root, 'packages/harness/test/fixtures/telemetry/record-imports.mjs');
    const r = await harness(
      [
        '--import',
        recorder,
        bin,
        'run',
        join(dir, 'suite.yaml'),
        '--out',
        join(dir, 'run'),
        '--format',
        'json',
        '--no-index',
      ],
      { AGENT_TOKEN: TOKEN, RECORD_IMPORTS_TO: imports },
      false,
    );
    expect(r.code, r.out).toBe(0);
    const loaded = readFileSync(imports, 'utf8');
    // The recorder saw the run's own modules: the tsc output, or the bundled CLI (scripts/build-bundles.mjs).
    expect(loaded).toMatch(/\/cli\/commands\/run\.js|\/dist\/bundle\/cli\.c?js/);
    expect(loaded).not.toContain('@opentelemetry');
    expect(loaded).not.toContain('/telemetry/otel.js');
    expect(loaded).not.toContain('harness.telemetry.otel.js'); // the bundle's file for it
    expect(traceparents.every((t) => t === '')).toBe(true);
    expect(readFileSync(join(dir, 'run', 'journal.jsonl'), 'utf8')).not.toContain('"otel"');
    expect(receiver.spans).toHaveLength(0);
  });

  it('sends the documented span tree with GenAI attributes, links results to it, propagates traceparent, leaks no secret', async () => {
    traceparents.length = 0;
    const dir = mkdtempSync(join(tmpdir(), 'harness-otel-'));
    writeFileSync(join(dir, 'suite.yaml'), suite(agent.url));
    const r = await harness(
      ['run', join(dir, 'suite.yaml'), '--out', join(dir, 'run'), '--format', 'json', '--no-index'],
      {
        AGENT_TOKEN: TOKEN,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: 'support-bot-eval',
      },
    );
    expect(r.out).toContain('run folder:');
    const spans = receiver.spans;

    const [run] = byName(spans, 'run ');
    expect(run?.name).toBe('run otel-demo');
    expect(run?.parentSpanId).toBeNull();
    expect(run?.resource['service.name']).toBe('support-bot-eval');
    expect(run?.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_workflow',
      'gen_ai.workflow.name': 'otel-demo',
      'harness.run.state': 'completed',
    });
    // One trace; every span hangs off the run.
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([run?.traceId]));

    const cases = byName(spans, 'case ');
    expect(cases.map((c) => c.name).sort()).toEqual(['case ok #0', 'case ok #1', 'case server-error #0']);
    for (const c of cases) expect(c.parentSpanId).toBe(run?.spanId);
    const failed = cases.find((c) => c.name === 'case server-error #0');
    expect(failed?.attributes['harness.case.status']).toBe('error');
    expect(failed?.status.code).toBe(2); // STATUS_CODE_ERROR

    const calls = byName(spans, 'invoke_agent ');
    // One span per attempt (the 500 is retried as transient): exactly as many as requests the agent saw.
    expect(calls.length).toBeGreaterThanOrEqual(3);
    expect(calls).toHaveLength(traceparents.length);
    for (const call of calls) {
      expect(call.name).toBe('invoke_agent http');
      expect(call.attributes['gen_ai.operation.name']).toBe('invoke_agent');
      expect(cases.map((c) => c.spanId)).toContain(call.parentSpanId);
    }
    // The agent received each call's own span as its parent (W3C traceparent).
    expect(traceparents.sort()).toEqual(calls.map((c) => `00-${c.traceId}-${c.spanId}-01`).sort());
    const okCall = calls.find((c) => c.attributes['gen_ai.usage.input_tokens'] === 12);
    expect(okCall?.attributes['gen_ai.usage.output_tokens']).toBe(5);

    const tools = byName(spans, 'execute_tool ');
    expect(tools.map((t) => t.name).sort()).toEqual([
      'execute_tool calculator',
      'execute_tool calculator',
      'execute_tool lookup',
      'execute_tool lookup',
    ]);
    for (const t of tools) {
      expect(t.attributes['gen_ai.operation.name']).toBe('execute_tool');
      expect(calls.map((c) => c.spanId)).toContain(t.parentSpanId);
    }
    expect(tools.find((t) => t.name === 'execute_tool lookup')?.attributes['error.type']).toBe('tool_error');

    const evals = byName(spans, 'evaluate ');
    expect(evals.length).toBe(3);
    const passed = evals.find((e) => e.attributes['gen_ai.evaluation.score.label'] === 'pass');
    expect(passed?.attributes).toMatchObject({
      'gen_ai.evaluation.name': 'contains',
      'gen_ai.evaluation.score.value': 1,
    });
    expect(passed?.events.map((e) => e.name)).toContain('gen_ai.evaluation.result');

    // Results and the header name their spans.
    const lines = readFileSync(join(dir, 'run', 'journal.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            type: string;
            result?: { test_id: string; repeat: number; metadata: { otel?: unknown } };
            experiment?: { metadata: { otel?: unknown } };
          },
      );
    const header = lines.find((l) => l.type === 'header');
    expect(header?.experiment?.metadata.otel).toEqual({ trace_id: run?.traceId, span_id: run?.spanId });
    for (const l of lines.filter((x) => x.type === 'result')) {
      const span = cases.find((c) => c.name === `case ${l.result?.test_id} #${l.result?.repeat}`);
      expect(l.result?.metadata.otel).toEqual({ trace_id: span?.traceId, span_id: span?.spanId });
    }

    // The token reached the agent (and came back in answers and errors) but never an exported byte.
    expect(receiver.bodies.join('')).toContain('[REDACTED]');
    for (const form of secretForms(TOKEN)) {
      for (const body of receiver.bodies) expect(body.includes(form), `an OTLP export holds ${form}`).toBe(false);
    }
  });
});

function suite(url: string): string {
  return `version: "1.0"
name: otel-demo
agent:
  adapter: http
  options:
    url: ${url}/ask
    headers:
      Authorization: "Bearer {{env.AGENT_TOKEN}}"
    body: { question: "{{input}}" }
    response: { output: $.answer, tool_calls: "$.tool_calls[*]", usage: $.usage }
evaluators: [contains]
metrics: [success_rate]
tests:
  - { id: ok, input: "what is 6*7", expected: "42", repeat: 2 }
  - { id: server-error, input: "boom", expected: "42" }
`;
}
