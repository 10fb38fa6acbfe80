import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { withoutTrustLabels } from '../../../src/campaign/labels.js';
import { TOOL_DEFINITIONS } from '../../../src/contracts/tools.js';
import type { ApproverVerdict, ExternalApprover } from '../../../src/control/approver.js';
import { runMcpAgent } from '../../../src/mcp/agent-process.js';
import { LAB_TOOLS } from '../../../src/mcp/catalog.js';
import { type LabMcpHttpServer, serveLabMcpHttp } from '../../../src/mcp/http.js';
import { type McpLimitsInput, McpRunSession, mcpTraceId } from '../../../src/mcp/session.js';
import { BaselinePort } from '../../../src/modes/baseline-port.js';
import { createProtectedSession, type ProtectedSession } from '../../../src/modes/protected-session.js';
import { McpAgentProvider } from '../../../src/providers/mcp.js';
import { createSimulator, type SimulatorState } from '../../../src/simulator/state.js';

/*
 * The lab's MCP server against hostile clients: the official MCP SDK client (and raw HTTP where a client library
 * would refuse to misbehave) on a real loopback socket, in front of a real baseline port or protected control plane.
 */

interface LabRun {
  simulator: SimulatorState;
  control: ProtectedSession | null;
  session: McpRunSession;
  http: LabMcpHttpServer;
  client: Client;
}

const open: LabRun[] = [];
afterEach(async () => {
  for (const run of open.splice(0)) {
    await run.client.close().catch(() => {});
    await run.http.close();
    run.session.end('incomplete', 'test over');
  }
});

async function labRun(
  mode: 'baseline' | 'protected',
  options: { limits?: McpLimitsInput; approver?: ExternalApprover; injections?: string[]; labels?: boolean } = {},
): Promise<LabRun> {
  const runId = randomUUID();
  const simulator = createSimulator({
    enforceScope: mode === 'protected',
    runId,
    injections: options.injections ?? [],
  });
  const control =
    mode === 'protected'
      ? createProtectedSession({
          simulator,
          runId,
          approvedModels: [['mcp', 'agent']],
          externalApprover: options.approver,
        })
      : null;
  const session = new McpRunSession({
    incidentId: simulator.incidentId,
    alert: structuredClone(simulator.incident),
    port: control ? control.port : new BaselinePort(simulator),
    runId,
    traceId: mcpTraceId(runId),
    providerId: 'mcp',
    model: 'agent',
    limits: options.limits,
    labelUntrusted: options.labels,
  });
  const http = await serveLabMcpHttp(session);
  const client = new Client({ name: 'hostile-test-client', version: '0.0.1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(http.url), {
      requestInit: { headers: { Authorization: `Bearer ${http.token}` } },
    }),
  );
  const run = { simulator, control, session, http, client };
  open.push(run);
  return run;
}

type CallResult = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: unknown };
const call = async (run: LabRun, name: string, args: Record<string, unknown>) =>
  (await run.client.callTool({ name, arguments: args })) as CallResult;
const text = (r: CallResult) => r.content.map((c) => c.text ?? '').join('\n');
const structured = (r: CallResult) => r.structuredContent as Record<string, unknown>;
const SUBJECT = 'u-alex-rivera';

/** Executions in the simulator (reads and state changes) and the grants the gateway issued. */
function everyExecutionHasAGrant(run: LabRun): void {
  const executions = run.control!.executor.executions;
  expect(run.simulator.accessLog.length + run.simulator.executionLog.length).toBe(executions.length);
  for (const e of executions) expect(run.control!.gateway.grants.get(e.grant_id), e.tool).toBeDefined();
}

describe('the official MCP SDK client against the lab server', () => {
  it('lists the ten simulator tools with their JSON Schemas and risk tiers, and the two lab tools', async () => {
    const run = await labRun('protected');
    const { tools } = await run.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([...TOOL_DEFINITIONS.map((t) => t.name), ...LAB_TOOLS]);
    for (const def of TOOL_DEFINITIONS) {
      const tool = tools.find((t) => t.name === def.name)!;
      expect(tool.inputSchema).toMatchObject({
        type: 'object',
        additionalProperties: false,
        required: def.params.filter((p) => p.required).map((p) => p.name),
      });
      expect(tool.annotations).toMatchObject({ readOnlyHint: !def.stateChanging });
      expect(tool.annotations?.destructiveHint).toBe(def.riskTier === 'high');
      // The SDK client keeps only the standard annotation keys; the tier also travels in _meta and the description.
      expect(tool._meta).toMatchObject({ 'soclab/risk_tier': def.riskTier });
      expect(tool.description).toContain(`Risk tier: ${def.riskTier}.`);
    }
    // On the wire the annotations carry the tier too, for clients that read them as they are.
    const res = await fetch(run.http.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${run.http.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }),
    });
    const wire = (await res.json()) as { result: { tools: { name: string; annotations: { riskTier: string } }[] } };
    for (const def of TOOL_DEFINITIONS) {
      expect(wire.result.tools.find((t) => t.name === def.name)?.annotations.riskTier, def.name).toBe(def.riskTier);
    }
  });

  it('serves the task and the alert as prompt and resource, the alert marked untrusted', async () => {
    const run = await labRun('baseline');
    const prompt = await run.client.getPrompt({ name: 'investigate_alert' });
    expect(prompt.messages).toHaveLength(2);
    expect(JSON.stringify(prompt.messages[0]?.content)).toContain('submit_finding');
    const alert = JSON.parse((prompt.messages[1]!.content as { text: string }).text);
    expect(alert).toMatchObject({ trust: 'untrusted', evidence_id: 'alert', alert: { subject_user_id: SUBJECT } });
    const resource = await run.client.readResource({ uri: 'soclab://incident/alert' });
    expect(JSON.parse((resource.contents[0] as { text: string }).text)).toEqual(alert);
    await expect(run.client.readResource({ uri: 'file:///etc/passwd' })).rejects.toThrow(/unknown resource/);
  });

  it('returns tool results as untrusted data with an evidence id, in structured content and text alike', async () => {
    const run = await labRun('protected');
    const r = await call(run, 'get_identity_profile', { user_id: SUBJECT });
    expect(r.isError).toBeFalsy();
    expect(structured(r)).toMatchObject({ trust: 'untrusted', evidence_id: 'get_identity_profile:1' });
    expect(JSON.parse(text(r))).toEqual(structured(r));
    everyExecutionHasAGrant(run);
  });
});

describe('the labels ablation for MCP agents', () => {
  it('drops the untrusted-data marking from results, alert and task, and nothing else', async () => {
    const ablated = withoutTrustLabels(new McpAgentProvider({ command: 'node agent.mjs' }));
    expect(ablated).toBeInstanceOf(McpAgentProvider);
    const run = await labRun('protected', { labels: false });
    const r = await call(run, 'get_identity_profile', { user_id: SUBJECT });
    expect(structured(r)).toMatchObject({ evidence_id: 'get_identity_profile:1', tool: 'get_identity_profile' });
    expect(structured(r).trust).toBeUndefined();
    const prompt = await run.client.getPrompt({ name: 'investigate_alert' });
    expect(JSON.stringify(prompt.messages)).not.toMatch(/untrusted/);
    const labelled = await labRun('protected');
    const task = await labelled.client.getPrompt({ name: 'investigate_alert' });
    expect(JSON.stringify(task.messages)).toMatch(/untrusted data/);
  });
});

describe('hostile MCP clients', () => {
  it('refuses requests without the run token, off the /mcp path, by GET, or for a non-loopback host', async () => {
    const run = await labRun('protected');
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const post = (headers: Record<string, string>, url = run.http.url) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await post({ authorization: run.http.token })).status).toBe(401);
    expect((await post({ authorization: `Bearer ${run.http.token}` }, `${run.http.url}/../admin`)).status).toBe(404);
    expect((await fetch(run.http.url, { headers: { authorization: `Bearer ${run.http.token}` } })).status).toBe(405);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(run.http.url, {
        method: 'POST',
        headers: {
          host: 'attacker.example',
          authorization: `Bearer ${run.http.token}`,
          'content-type': 'application/json',
        },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(403);
    expect(run.session.callsMade).toBe(0);
    // The refusals never echo the token.
    expect(JSON.stringify(run.http.refused)).not.toContain(run.http.token);
  });

  it('unknown tools reach the control plane and are refused with its reason code', async () => {
    const run = await labRun('protected');
    const r = await call(run, 'exfiltrate_database', { target: 'all' });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^unknown_tool: /);
    const base = await labRun('baseline');
    const b = await call(base, 'exfiltrate_database', {});
    expect(b.isError).toBe(true);
    expect(text(b)).toMatch(/^ToolNotFoundError: /);
    const bad = await call(run, 'Bad Name!', {});
    expect(text(bad)).toMatch(/^malformed_call: /);
    const result = run.session.result();
    expect(result.proposals.map((p) => p.result.status)).toEqual(['denied']);
    expect(result.events.map((e) => e.error)).toEqual([null, 'malformed_call']);
    everyExecutionHasAGrant(run);
  });

  it('schema-violating arguments and smuggled scope or approval ids are refused and execute nothing', async () => {
    const run = await labRun('protected');
    for (const args of [
      { user_id: SUBJECT, incident_id: 'INC-OTHER-1' },
      { user_id: SUBJECT, approval_id: randomUUID() },
      { user_id: { $ne: null } },
    ]) {
      const r = await call(run, 'disable_account', args);
      expect(r.isError, JSON.stringify(args)).toBe(true);
      const codes = (structured(r).reason_codes as string[]) ?? [];
      expect(text(r).startsWith(`${codes[0]}:`), text(r)).toBe(true);
      expect(
        codes.some((c) => /argument_schema_violation|argument_not_scalar/.test(c)),
        codes.join(),
      ).toBe(true);
    }
    expect(run.simulator.executionLog).toEqual([]);
    everyExecutionHasAGrant(run);
  });

  it('forged and replayed action ids resolve to nothing; a repeated action is decided afresh and never runs unapproved', async () => {
    const run = await labRun('protected');
    const forged = await call(run, 'get_action_status', { action_id: randomUUID() });
    expect(text(forged)).toMatch(/^unknown_action: /);
    const first = await call(run, 'revoke_sessions', { user_id: SUBJECT });
    expect(structured(first)).toMatchObject({
      status: expect.stringMatching(/awaiting_approval|denied|failed_closed/),
    });
    const again = await call(run, 'revoke_sessions', { user_id: SUBJECT });
    expect(structured(again).action_id).not.toBe(structured(first).action_id);
    const status = await call(run, 'get_action_status', { action_id: structured(first).action_id as string });
    expect(structured(status)).toMatchObject({ action_id: structured(first).action_id, tool: 'revoke_sessions' });
    expect(structured(status).status).not.toBe('executed');
    expect(run.simulator.executionLog).toEqual([]);
    expect(run.simulator.revokedSessions[SUBJECT] ?? 0).toBe(0);
    everyExecutionHasAGrant(run);
  });

  it('parallel calls are all mediated, one at a time, with distinct evidence ids', async () => {
    const run = await labRun('protected');
    const results = await Promise.all(
      Array.from({ length: 8 }, () => call(run, 'get_authentication_history', { user_id: SUBJECT })),
    );
    expect(results.every((r) => !r.isError)).toBe(true);
    const ids = results.map((r) => structured(r).evidence_id);
    expect(new Set(ids).size).toBe(8);
    expect(run.session.callsMade).toBe(8);
    expect(run.control!.gateway.callsMadeCount).toBe(8);
    everyExecutionHasAGrant(run);
  });

  it('huge arguments end the run as limit_exceeded; later calls are refused', async () => {
    const run = await labRun('protected', { limits: { max_argument_bytes: 4096 } });
    const r = await call(run, 'search_siem_events', { query: 'x'.repeat(100_000) });
    expect(text(r)).toMatch(/^limit_exceeded: argument size limit of 4096 bytes/);
    const result = run.session.result();
    expect(result.status).toBe('incomplete');
    expect(result.failure_reason).toMatch(/^limit_exceeded: /);
    // The oversized arguments are not stored on the run's record.
    expect(JSON.stringify(result).length).toBeLessThan(20_000);
    const after = await call(run, 'get_identity_profile', { user_id: SUBJECT });
    expect(text(after)).toMatch(/^run_finished: /);
    expect(run.simulator.accessLog).toEqual([]);
  });

  it('a request body over the HTTP limit is refused with 413 and ends the run', async () => {
    const run = await labRun('baseline');
    const res = await fetch(run.http.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${run.http.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'x', arguments: { q: 'y'.repeat(2 * 1024 * 1024) } },
      }),
    });
    expect(res.status).toBe(413);
    expect(run.session.result().failure_reason).toMatch(/^limit_exceeded: request body over/);
  });

  it('the call budget ends the run as limit_exceeded', async () => {
    const run = await labRun('baseline', { limits: { max_calls: 3 } });
    for (let i = 0; i < 3; i++)
      expect((await call(run, 'get_identity_profile', { user_id: SUBJECT })).isError).toBeFalsy();
    const over = await call(run, 'get_identity_profile', { user_id: SUBJECT });
    expect(text(over)).toMatch(/^limit_exceeded: call budget of 3 calls/);
    expect(run.session.result()).toMatchObject({ status: 'incomplete' });
    expect(run.simulator.accessLog).toHaveLength(3);
  });

  it('calls after submit_finding are refused; an invalid finding is refused without ending the run', async () => {
    const run = await labRun('protected');
    const read = await call(run, 'get_identity_profile', { user_id: SUBJECT });
    const bad = await call(run, 'submit_finding', { summary: 'x', claims: 'all of them' });
    expect(text(bad)).toMatch(/^invalid_finding: /);
    const ok = await call(run, 'submit_finding', {
      summary: 'Compromise of the subject',
      claims: [
        { text: 'Profile read', evidence_ids: [structured(read).evidence_id as string] },
        { text: 'Invented', evidence_ids: ['get_identity_profile:99'] },
      ],
      techniques: ['T1078'],
      confidence: 0.7,
    });
    expect(structured(ok)).toMatchObject({ accepted: true, claims_total: 2, claims_supported: 1 });
    const late = await call(run, 'disable_account', { user_id: SUBJECT });
    expect(text(late)).toMatch(/^run_finished: /);
    const result = run.session.result();
    expect(result.status).toBe('complete');
    expect(result.finding?.claims.map((c) => c.supported)).toEqual([true, false]);
    expect(result.proposals.map((p) => p.proposal.tool_name)).toEqual(['get_identity_profile']);
  });

  it('a client that disconnects mid-call: the call completes in the control plane, recorded, and runs only as decided', async () => {
    let answer: (v: ApproverVerdict | null) => void = () => {};
    let resolveAsked: () => void = () => {};
    const asked = new Promise<void>((resolve) => {
      resolveAsked = resolve;
    });
    // A person who takes their time: the gateway waits for the verdict while the client gives up.
    const approver: ExternalApprover = {
      name: 'slow-human',
      review: () => {
        resolveAsked();
        return new Promise((resolve) => {
          answer = resolve;
        });
      },
    };
    const run = await labRun('protected', { approver });
    // A read first: a response action needs two pieces of evidence before the policy asks anyone.
    await call(run, 'get_identity_profile', { user_id: SUBJECT });
    // A second client of the same run hangs up while its call waits for the approver.
    const dropper = new Client({ name: 'dropping-client', version: '0.0.1' });
    await dropper.connect(
      new StreamableHTTPClientTransport(new URL(run.http.url), {
        requestInit: { headers: { Authorization: `Bearer ${run.http.token}` } },
      }),
    );
    const pending = dropper
      .callTool({ name: 'revoke_sessions', arguments: { user_id: SUBJECT } })
      .catch((e: Error) => e);
    await asked;
    await dropper.close();
    expect(await pending).toBeInstanceOf(Error);
    answer({ approver_id: 'analyst-2', decision: 'rejected', reason: 'not warranted' });
    // The next call waits behind the abandoned one (calls are handled in order), so the decision is on record.
    const next = await call(run, 'get_identity_profile', { user_id: SUBJECT });
    expect(next.isError).toBeFalsy();
    const result = run.session.result();
    expect(result.proposals.map((p) => [p.proposal.tool_name, p.result.status])).toEqual([
      ['get_identity_profile', 'executed'],
      ['revoke_sessions', 'denied'],
      ['get_identity_profile', 'executed'],
    ]);
    expect(run.simulator.executionLog).toEqual([]);
    everyExecutionHasAGrant(run);
  });
});

describe('agent processes that misbehave', () => {
  const session = (limits?: McpLimitsInput) => {
    const runId = randomUUID();
    const simulator = createSimulator({ enforceScope: false, runId });
    return new McpRunSession({
      incidentId: simulator.incidentId,
      alert: simulator.incident,
      port: new BaselinePort(simulator),
      runId,
      traceId: mcpTraceId(runId),
      providerId: 'mcp',
      model: 'agent',
      limits,
    });
  };
  const node = (script: string) => `${process.execPath} -e ${JSON.stringify(script)}`;

  it('an agent that never submits is stopped at the wall-clock budget (limit_exceeded)', async () => {
    const s = session({ max_seconds: 1.5 });
    const exit = await runMcpAgent(s, { command: node('setInterval(() => {}, 1000)') });
    expect(exit.stoppedByLab).toBe(true);
    expect(s.result()).toMatchObject({
      status: 'incomplete',
      failure_reason: expect.stringMatching(/^limit_exceeded: wall-clock/),
    });
  });

  it('an agent that crashes before submitting ends the run as failed, one that cannot start as errored', async () => {
    const crashed = session();
    const exit = await runMcpAgent(crashed, { command: node('process.exit(3)') });
    expect(exit.code).toBe(3);
    expect(crashed.result()).toMatchObject({
      status: 'failed',
      failure_reason: 'the agent exited with code 3 before submitting a finding',
    });
    const missing = session();
    await runMcpAgent(missing, { command: 'soclab-no-such-agent-binary --flag' });
    expect(missing.result()).toMatchObject({
      status: 'errored',
      failure_reason: 'agent command could not start: ENOENT',
    });
  });

  it('the agent gets the run URL and token but none of the lab secrets in its environment', async () => {
    const s = session({ max_seconds: 30 });
    const dir = fileURLToPath(new URL('.', import.meta.url));
    const out = join(dir, `.env-probe-${process.pid}.json`);
    const script = `require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(Object.keys(process.env)))`;
    await runMcpAgent(s, {
      command: node(script),
      env: {
        ...process.env,
        SOCLAB_GRANT_SIGNING_KEY: 'k',
        SOCLAB_DATABASE_URL: 'postgres://x',
        SOCLAB_API_TOKENS: 't',
      },
    });
    const keys = JSON.parse(readFileSync(out, 'utf8')) as string[];
    await import('node:fs/promises').then((fs) => fs.rm(out));
    expect(keys).toEqual(expect.arrayContaining(['SOCLAB_MCP_URL', 'SOCLAB_MCP_TOKEN']));
    expect(keys).not.toEqual(expect.arrayContaining(['SOCLAB_GRANT_SIGNING_KEY']));
    expect(keys.filter((k) => /DATABASE|API_TOKENS|SIGNING/.test(k))).toEqual([]);
  });
});

describe('MCP layer discipline (static)', () => {
  const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? files(path) : name.endsWith('.ts') ? [path] : [];
    });

  it('the MCP layer and the mcp provider import neither the simulator nor the executor nor the gateway', () => {
    const sources = [...files(join(SRC, 'mcp')), join(SRC, 'providers', 'mcp.ts')];
    expect(sources.length).toBeGreaterThan(3);
    for (const file of sources) {
      const imports = [...readFileSync(file, 'utf8').matchAll(/from\s+'([^']+)'|import\s+'([^']+)'/g)].map(
        (m) => m[1] ?? m[2] ?? '',
      );
      for (const spec of imports) {
        expect(spec, relative(SRC, file)).not.toMatch(/simulator|executor|gateway|control\//);
      }
    }
  });
});
