/**
 * Overhead of the `http` provider (soclab.agent.v1) per stage, against the reference agent on loopback.
 *
 * The reference agent (examples/soclab-agent-v1/server.ts) runs as its own process on 127.0.0.1. For each of the seven
 * stages of a real investigation (requests captured from the orchestrator), two calls are interleaved:
 *   - provider: HttpAgentProvider.generateStructured(request): translate, serialize, POST with the bearer token,
 *     bounded read, strict validation, token stripping, normalization, redacted logging;
 *   - raw: the same pre-serialized body POSTed with undici on its own keep-alive pool, reply read as text.
 * Overhead = provider − raw, paired per iteration. Target: p50 overhead ≤ 2 ms per stage.
 * Also reported: the adapter's own CPU cost with an in-memory transport (no socket), the floor of the overhead.
 *
 * Run from the repository root: `npx tsx bench/soclab-http-provider.bench.ts` (BENCH_ITERATIONS, default 200 per stage).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpus, loadavg } from 'node:os';
import type { ModelRequest } from '@aeh/models';
import { Agent, request } from 'undici';
import { BaselinePort } from '../packages/soclab/src/modes/baseline-port.js';
import { runInvestigation } from '../packages/soclab/src/orchestrator/investigation.js';
import { buildAgentRequest, HttpAgentProvider } from '../packages/soclab/src/providers/http.js';
import { createSimulator } from '../packages/soclab/src/simulator/state.js';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200);
const WARMUP = 30;
const TOKEN = 'bench-token-6f0e3a1d92c4';
const TARGET_MS = 2;

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const fmt = (ms: number) => `${ms.toFixed(3)} ms`;

async function startAgent(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/soclab-agent-v1/server.ts'], {
    env: { ...process.env, SOCLAB_HTTP_AGENT_PORT: '0', SOCLAB_HTTP_AGENT_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout?.setEncoding('utf8');
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (c: string) => {
      out += c;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`reference agent exited (${code})`)));
  });
  return { child, url };
}

/** The seven requests of a real investigation, captured at the provider boundary. */
async function captureStageRequests(url: string): Promise<ModelRequest[]> {
  const captured: ModelRequest[] = [];
  const inner = new HttpAgentProvider({ url, token: TOKEN });
  const recorder = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'generateStructured') {
        return (req: ModelRequest, signal?: AbortSignal) => {
          captured.push(structuredClone(req));
          return target.generateStructured(req, signal);
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
  const sim = createSimulator({ enforceScope: false });
  const result = await runInvestigation({
    incidentId: 'INC-1001',
    alert: sim.incident as Record<string, unknown>,
    provider: recorder,
    port: new BaselinePort(sim),
  });
  await inner.close();
  if (result.status !== 'complete' || captured.length !== 7) {
    throw new Error(`capture failed: ${result.status} ${result.failure_reason ?? ''}`);
  }
  return captured;
}

async function main(): Promise<void> {
  const { child, url } = await startAgent();
  try {
    const requests = await captureStageRequests(url);
    const provider = new HttpAgentProvider({ url, token: TOKEN });
    const pool = new Agent({ keepAliveTimeout: 10_000, connections: 64 });
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json',
      'x-soclab-contract': 'soclab.agent.v1',
      authorization: `Bearer ${TOKEN}`,
    };
    const raw = async (body: string) => {
      const res = await request(url, { method: 'POST', headers, body, dispatcher: pool });
      return res.body.text();
    };

    // The adapter alone: same request, canned reply, no socket.
    const canned = new Map<string, string>();
    for (const r of requests) canned.set(r.stage, await raw(JSON.stringify(buildAgentRequest(r))));
    const offline = new HttpAgentProvider({
      url,
      token: TOKEN,
      transport: async ({ body }) => ({
        status: 200,
        body: canned.get((JSON.parse(body) as { stage: string }).stage)!,
      }),
    });

    console.log(
      `soclab http provider overhead per stage — ${ITERATIONS} iterations per stage, ${cpus().length} CPUs, load ${loadavg()[0]!.toFixed(2)}`,
    );
    console.log(
      'stage                   req KB  raw p50    provider p50  overhead p50  overhead p99  adapter-only p50/p99',
    );
    const allOverheads: number[] = [];
    const allOffline: number[] = [];
    for (const req of requests) {
      const body = JSON.stringify(buildAgentRequest(req));
      for (let i = 0; i < WARMUP; i++) {
        await provider.generateStructured(req);
        await raw(body);
        await offline.generateStructured(req);
      }
      const rawTimes: number[] = [];
      const provTimes: number[] = [];
      const overheads: number[] = [];
      const offTimes: number[] = [];
      for (let i = 0; i < ITERATIONS; i++) {
        // Alternate the order so neither side always runs on a warmer socket.
        let tRaw: number;
        let tProv: number;
        if (i % 2 === 0) {
          let t = performance.now();
          await raw(body);
          tRaw = performance.now() - t;
          t = performance.now();
          await provider.generateStructured(req);
          tProv = performance.now() - t;
        } else {
          let t = performance.now();
          await provider.generateStructured(req);
          tProv = performance.now() - t;
          t = performance.now();
          await raw(body);
          tRaw = performance.now() - t;
        }
        rawTimes.push(tRaw);
        provTimes.push(tProv);
        overheads.push(tProv - tRaw);
        const t = performance.now();
        await offline.generateStructured(req);
        offTimes.push(performance.now() - t);
      }
      allOverheads.push(...overheads);
      allOffline.push(...offTimes);
      console.log(
        `${req.stage.padEnd(22)} ${(body.length / 1024).toFixed(1).padStart(6)}  ${fmt(quantile(rawTimes, 0.5)).padEnd(9)}  ${fmt(
          quantile(provTimes, 0.5),
        ).padEnd(12)}  ${fmt(quantile(overheads, 0.5)).padEnd(12)}  ${fmt(quantile(overheads, 0.99)).padEnd(12)}  ${fmt(
          quantile(offTimes, 0.5),
        )} / ${fmt(quantile(offTimes, 0.99))}`,
      );
    }
    const p50 = quantile(allOverheads, 0.5);
    const p99 = quantile(allOverheads, 0.99);
    console.log(
      `all stages: overhead p50 ${fmt(p50)}, p99 ${fmt(p99)}; adapter alone p50 ${fmt(quantile(allOffline, 0.5))}, p99 ${fmt(
        quantile(allOffline, 0.99),
      )}`,
    );
    console.log(`target: overhead p50 <= ${TARGET_MS} ms per stage -> ${p50 <= TARGET_MS ? 'MET' : 'NOT MET'}`);
    await provider.close();
    await pool.close();
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

await main();
