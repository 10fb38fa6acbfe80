/**
 * Cost of the lab's MCP layer per tool call, against the same work done without it (same run, same port).
 *
 * Three calls of `get_identity_profile` are interleaved per iteration, each on its own baseline port and simulator:
 *   - port:    port.propose(proposal) directly (what the orchestrator does; the same-run baseline);
 *   - session: McpRunSession.callTool (proposal building, evidence registration, the recorded agent turn);
 *   - mcp:     the official MCP SDK client over Streamable HTTP on loopback (bearer check, a fresh protocol server
 *              per request, JSON-RPC, JSON response) into the same kind of session.
 * Reported: p50/p95 of each and the paired overheads (session − port, mcp − port). No target is set by the issue;
 * the figures say what an MCP agent pays per call on top of the orchestrator's path.
 *
 * Run from the repository root: `npx tsx bench/soclab-mcp-server.bench.ts` (BENCH_ITERATIONS, default 300).
 */
import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ActionProposal } from '../packages/soclab/src/contracts/proposals.js';
import { serveLabMcpHttp } from '../packages/soclab/src/mcp/http.js';
import { McpRunSession, mcpTraceId } from '../packages/soclab/src/mcp/session.js';
import { BaselinePort } from '../packages/soclab/src/modes/baseline-port.js';
import { createSimulator } from '../packages/soclab/src/simulator/state.js';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 300);
const WARMUP = 30;
const ARGS = { user_id: 'u-alex-rivera' };

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const fmt = (ms: number) => `${ms.toFixed(3)} ms`;

function session(): McpRunSession {
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
    limits: { max_calls: 1_000_000, max_seconds: 3600 },
  });
}

async function main(): Promise<void> {
  const simulator = createSimulator({ enforceScope: false });
  const port = new BaselinePort(simulator);
  const alertRef = {
    evidence_id: 'alert',
    source_tool: 'alert',
    incident_id: simulator.incidentId,
    trust: 'untrusted' as const,
    content_hash: '0'.repeat(64),
    summary: 'alert',
  };
  const direct = () =>
    port.propose(
      ActionProposal.parse({
        agent_id: 'soc-investigator',
        delegated_user_id: 'analyst-1',
        incident_id: simulator.incidentId,
        tool_name: 'get_identity_profile',
        arguments: ARGS,
        evidence_refs: [alertRef],
        rationale: 'bench',
        provider: 'mcp',
        model: 'agent',
        trace_id: 'trace-bench',
      }),
    );
  const inProcess = session();
  const served = session();
  const http = await serveLabMcpHttp(served);
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(http.url), {
      requestInit: { headers: { Authorization: `Bearer ${http.token}` } },
    }),
  );

  const samples = { port: [] as number[], session: [] as number[], mcp: [] as number[] };
  for (let i = 0; i < WARMUP + ITERATIONS; i++) {
    let t = performance.now();
    const a = await direct();
    const tPort = performance.now() - t;
    t = performance.now();
    const b = await inProcess.callTool('get_identity_profile', ARGS);
    const tSession = performance.now() - t;
    t = performance.now();
    const c = await client.callTool({ name: 'get_identity_profile', arguments: ARGS });
    const tMcp = performance.now() - t;
    if (a.status !== 'executed' || b.isError || c.isError) throw new Error('a call was refused');
    if (i < WARMUP) continue;
    samples.port.push(tPort);
    samples.session.push(tSession);
    samples.mcp.push(tMcp);
  }
  await client.close();
  await http.close();
  inProcess.end('complete', null);
  served.end('complete', null);

  const overhead = (xs: number[]) => xs.map((x, i) => x - samples.port[i]!);
  console.log(`soclab MCP server, ${ITERATIONS} calls each (${cpus().length} CPUs, load ${loadavg()[0]!.toFixed(2)})`);
  for (const [name, xs] of Object.entries(samples)) {
    console.log(`  ${name.padEnd(8)} p50 ${fmt(quantile(xs, 0.5))}  p95 ${fmt(quantile(xs, 0.95))}`);
  }
  const sessionOver = overhead(samples.session);
  const mcpOver = overhead(samples.mcp);
  console.log(
    `  overhead session - port: p50 ${fmt(quantile(sessionOver, 0.5))}  p95 ${fmt(quantile(sessionOver, 0.95))}`,
  );
  console.log(`  overhead mcp - port    : p50 ${fmt(quantile(mcpOver, 0.5))}  p95 ${fmt(quantile(mcpOver, 0.95))}`);
  console.log(
    `  ratio mcp / port (p50)  : ${(quantile(samples.mcp, 0.5) / quantile(samples.port, 0.5)).toFixed(1)}x (same run)`,
  );
}

await main();
