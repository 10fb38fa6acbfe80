/**
 * soclab as a service: is the API responsive while campaigns run, and what do more campaign workers buy?
 *
 * 1. `GET /health` p99 while a CPU-bound 10-repeat mock campaign (330 scenario runs) executes. Target <= 20 ms with
 *    the default local worker pool (`campaign_workers: 1`). Same-run baselines: the idle server, and the same
 *    campaign run inside the API process (`campaign_workers: 0`, the behaviour before the pool).
 * 2. Campaign throughput with 4 workers vs 1 on I/O-bound live-agent runs: the `http` provider against the
 *    reference agent on loopback behind a proxy that answers each turn 100 ms late. Four one-scenario-at-a-time
 *    campaigns are submitted at once; with 1 worker they run one after another, with 4 side by side.
 *
 * 3. `GET /health` p99 while the same campaign runs on a `soclab worker` process through Redis (`queue_url`), with
 *    the coordinator on the server's worker thread (`campaign_workers: 1`) and on its event loop (`campaign_workers:
 *    0`). Needs `redis-server` on PATH (a throwaway one on a free loopback port); skipped with a message otherwise.
 *
 * Each server is `soclab serve` in its own process (from source, with tsx), so autocannon never shares its event
 * loop. Run: `npm run bench -- soclab-service` (BENCH_SERVICE_DURATION seconds of /health load, default 8;
 * BENCH_SERVICE_PART=1, 2 or 3 runs one part).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TOKEN = 'bench-operator-token-0123456789abcdef';
const DURATION = Number(process.env.BENCH_SERVICE_DURATION ?? 8);
const auth = { authorization: `Bearer ${TOKEN}` };
/** Scenarios of each live-agent campaign (default: every scenario a live agent can run). */
const SCENARIOS = process.env.BENCH_SERVICE_SCENARIOS?.split(',');
/** `1`, `2` or `3` runs one part only. */
const PART = process.env.BENCH_SERVICE_PART;
const dirs: string[] = [];

interface Server {
  base: string;
  child: ChildProcess;
}

async function startServer(settings: string[], env: NodeJS.ProcessEnv = {}): Promise<Server> {
  const dir = mkdtempSync(join(os.tmpdir(), 'soclab-service-bench-'));
  dirs.push(dir);
  writeFileSync(
    join(dir, 'server.yaml'),
    [
      `data_dir: ${JSON.stringify(join(dir, 'data'))}`,
      'tokens:',
      `  - { name: bench, role: operator, token: ${TOKEN} }`,
      'rate_limit: { max: 10000000, window_ms: 60000 }',
      ...settings,
    ].join('\n'),
  );
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'packages/soclab/src/cli/main.ts'),
      'serve',
      '--port',
      '0',
      '--config',
      join(dir, 'server.yaml'),
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, SOCLAB_API_TOKENS: '', ...env } },
  );
  const base = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!.trim());
    });
    child.once('exit', (code) => reject(new Error(`soclab serve exited with ${code}`)));
  });
  return { base, child };
}

async function stop(server: Server): Promise<void> {
  const exited = new Promise((r) => server.child.once('exit', r));
  server.child.kill('SIGTERM');
  await exited;
}

async function startCampaign(base: string, body: Record<string, unknown>): Promise<string> {
  const r = await fetch(`${base}/api/v1/campaigns`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (r.status !== 202) throw new Error(`campaign refused: ${r.status} ${await r.text()}`);
  return ((await r.json()) as { campaign_id: string }).campaign_id;
}

interface CampaignState {
  status: string;
  progress: { done: number; total: number; errors: number };
}
const campaign = async (base: string, id: string): Promise<CampaignState> =>
  (await (await fetch(`${base}/api/v1/campaigns/${id}`, { headers: auth })).json()) as CampaignState;

async function waitRunning(base: string, id: string): Promise<void> {
  for (;;) {
    const c = await campaign(base, id);
    if (c.status !== 'queued' && c.progress.done > 0) return;
    if (c.status !== 'queued' && c.status !== 'running') throw new Error(`campaign ${c.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function waitFinished(base: string, ids: string[]): Promise<CampaignState[]> {
  for (;;) {
    const states = await Promise.all(ids.map((id) => campaign(base, id)));
    if (states.every((c) => c.status !== 'queued' && c.status !== 'running')) return states;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** /health under load while a 10-repeat mock campaign runs with `workers` campaign workers (0: in the API process). */
async function healthDuringCampaign(workers: number) {
  const server = await startServer([`campaign_workers: ${workers}`, 'campaign_concurrency: 4']);
  try {
    await autocannon({ url: `${server.base}/health`, connections: 2, duration: 2 });
    const idle = await autocannon({ url: `${server.base}/health`, connections: 2, duration: DURATION });
    const id = await startCampaign(server.base, { mode: 'protected', repeats: 10 });
    await waitRunning(server.base, id);
    const during = await autocannon({ url: `${server.base}/health`, connections: 2, duration: DURATION });
    const state = await campaign(server.base, id);
    return { idle, during, state };
  } finally {
    await stop(server);
  }
}

/** The reference agent behind a proxy that holds every reply for `delayMs` (an I/O-bound live agent). */
async function slowAgent(delayMs: number): Promise<{ url: string; token: string; close(): Promise<void> }> {
  const token = 'bench-agent-token-5c1d0e8f7a2b';
  const agent = spawn(process.execPath, ['--import', 'tsx', 'examples/soclab-agent-v1/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, SOCLAB_HTTP_AGENT_PORT: '0', SOCLAB_HTTP_AGENT_TOKEN: token },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const target = await new Promise<URL>((resolve, reject) => {
    let out = '';
    agent.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+\S*/);
      if (m) resolve(new URL(m[0]));
    });
    agent.once('exit', (code) => reject(new Error(`reference agent exited with ${code}`)));
  });
  const proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      setTimeout(() => {
        const upstream = httpRequest(
          { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        upstream.on('error', () => res.writeHead(502).end());
        upstream.end(Buffer.concat(chunks));
      }, delayMs);
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    token,
    async close() {
      proxy.close();
      const exited = new Promise((r) => agent.once('exit', r));
      agent.kill('SIGTERM');
      await exited;
    },
  };
}

/** Wall time of `campaigns` one-at-a-time live-agent campaigns with `workers` campaign workers. */
async function throughput(workers: number, campaigns: number, agentUrl: string, agentToken: string) {
  const server = await startServer(
    [`campaign_workers: ${workers}`, `max_running_campaigns: ${workers}`, 'campaign_concurrency: 1'],
    { SOCLAB_HTTP_AGENT_URL: agentUrl, SOCLAB_HTTP_AGENT_TOKEN: agentToken },
  );
  try {
    // Warm-up: one small mock campaign per worker at once, so every worker thread has started and loaded the lab
    // (seconds on a loaded machine) before the clock runs.
    const warm: string[] = [];
    for (let i = 0; i < workers; i += 1)
      warm.push(await startCampaign(server.base, { mode: 'protected', scenario_ids: ['BEN-001'] }));
    await waitFinished(server.base, warm);
    const started = performance.now();
    const ids: string[] = [];
    for (let i = 0; i < campaigns; i += 1)
      ids.push(
        await startCampaign(server.base, {
          mode: 'protected',
          provider_id: 'http',
          model: 'reference-agent',
          scenario_ids: SCENARIOS,
        }),
      );
    const states = await waitFinished(server.base, ids);
    const seconds = (performance.now() - started) / 1000;
    const runs = states.reduce((n, s) => n + s.progress.done, 0);
    return {
      seconds,
      runs,
      statuses: states.map((s) => s.status),
      errors: states.reduce((n, s) => n + s.progress.errors, 0),
    };
  } finally {
    await stop(server);
  }
}

try {
  console.log(
    `soclab service (machine: ${os.cpus().length} CPUs, load ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')})`,
  );
  if (PART === undefined || PART === '1') await health();
  if (PART === undefined || PART === '2') await liveThroughput();
  if (PART === undefined || PART === '3') await healthWithRedisWorkers();
} finally {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}

async function health(): Promise<void> {
  const inProcess = await healthDuringCampaign(0);
  const pooled = await healthDuringCampaign(1);
  const line = (name: string, r: Awaited<ReturnType<typeof healthDuringCampaign>>) =>
    `  ${name}: idle p99 ${r.idle.latency.p99} ms; during the campaign p50 ${r.during.latency.p50} ms, p99 ${r.during.latency.p99} ms, ` +
    `max ${r.during.latency.max} ms (${r.during.requests.average.toFixed(0)} req/s; campaign ${r.state.progress.done}/${r.state.progress.total} runs, ${r.state.status})`;
  console.log(`1. GET /health while a 10-repeat mock campaign runs (autocannon, 2 connections, ${DURATION} s)`);
  console.log(line('in the API process (campaign_workers: 0)', inProcess));
  console.log(line('local worker pool  (campaign_workers: 1)', pooled));
  const p99 = pooled.during.latency.p99;
  console.log(
    `  target p99 <= 20 ms with the pool: ${p99 <= 20 ? 'OK' : 'MISSED'} (${p99} ms; in-process ${inProcess.during.latency.p99} ms, ` +
      `ratio ${(inProcess.during.latency.p99 / Math.max(p99, 1)).toFixed(1)}x)`,
  );
}

async function liveThroughput(): Promise<void> {
  const agent = await slowAgent(100);
  try {
    const campaigns = Number(process.env.BENCH_SERVICE_CAMPAIGNS ?? 4);
    const one = await throughput(1, campaigns, agent.url, agent.token);
    const four = await throughput(4, campaigns, agent.url, agent.token);
    console.log(
      `2. ${campaigns} live-agent campaigns (http provider, agent answers each turn after 100 ms, 1 run at a time each)`,
    );
    for (const [name, r] of [
      ['1 worker ', one],
      ['4 workers', four],
    ] as const) {
      console.log(
        `  ${name}: ${r.seconds.toFixed(1)} s, ${r.runs} runs, ${(r.runs / r.seconds).toFixed(2)} runs/s, ${r.errors} errored runs, ${r.statuses.join(',')}`,
      );
    }
    console.log(`  speed-up 4 vs 1: ${(one.seconds / four.seconds).toFixed(2)}x`);
  } finally {
    await agent.close();
  }
}

/** A throwaway redis-server on a free loopback port, or null when none is installed. */
async function startRedis(): Promise<{ url: string; stop(): Promise<void> } | null> {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as AddressInfo;
      probe.close(() => resolve(free));
    });
  });
  const child = spawn(
    'redis-server',
    ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const failed = await new Promise<boolean>((resolve) => {
    child.once('error', () => resolve(true));
    setTimeout(() => resolve(false), 500);
  });
  if (failed) return null;
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** /health under load while a 10-repeat mock campaign runs on one `soclab worker` through Redis. */
async function healthDuringQueuedCampaign(redisUrl: string, workers: number) {
  const server = await startServer([
    `campaign_workers: ${workers}`,
    'campaign_concurrency: 4',
    `queue_url: ${JSON.stringify(redisUrl)}`,
  ]);
  const dataDir = join(dirs.at(-1)!, 'data');
  const worker = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'packages/soclab/src/cli/main.ts'),
      'worker',
      '--queue',
      redisUrl,
      '--concurrency',
      '4',
      '--db',
      join(dataDir, 'soclab.sqlite'),
    ],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: process.env },
  );
  try {
    await new Promise<void>((resolve, reject) => {
      let said = '';
      worker.stderr?.on('data', (d: Buffer) => {
        said += d.toString();
        if (said.includes('waiting for runs')) resolve();
      });
      worker.once('exit', (code) => reject(new Error(`soclab worker exited with ${code}: ${said}`)));
    });
    await autocannon({ url: `${server.base}/health`, connections: 2, duration: 2 });
    const idle = await autocannon({ url: `${server.base}/health`, connections: 2, duration: DURATION });
    const id = await startCampaign(server.base, { mode: 'protected', repeats: 10 });
    await waitRunning(server.base, id);
    const during = await autocannon({ url: `${server.base}/health`, connections: 2, duration: DURATION });
    const state = await campaign(server.base, id);
    return { idle, during, state };
  } finally {
    const exited = new Promise((r) => worker.once('exit', r));
    worker.kill('SIGKILL');
    await exited;
    await stop(server);
  }
}

async function healthWithRedisWorkers(): Promise<void> {
  const redis = await startRedis();
  if (!redis) {
    console.log('3. skipped: redis-server is not installed (apt-get install redis-server)');
    return;
  }
  try {
    const onLoop = await healthDuringQueuedCampaign(redis.url, 0);
    const onThread = await healthDuringQueuedCampaign(redis.url, 1);
    const line = (name: string, r: Awaited<ReturnType<typeof healthDuringQueuedCampaign>>) =>
      `  ${name}: idle p99 ${r.idle.latency.p99} ms; during the campaign p50 ${r.during.latency.p50} ms, p99 ${r.during.latency.p99} ms, ` +
      `max ${r.during.latency.max} ms (${r.during.requests.average.toFixed(0)} req/s; campaign ${r.state.progress.done}/${r.state.progress.total} runs, ${r.state.status})`;
    console.log(
      `3. GET /health while a 10-repeat mock campaign runs on a soclab worker through Redis (queue_url; autocannon, 2 connections, ${DURATION} s)`,
    );
    console.log(line('coordinator on the event loop (campaign_workers: 0)', onLoop));
    console.log(line('coordinator on a thread       (campaign_workers: 1)', onThread));
    const p99 = onThread.during.latency.p99;
    console.log(`  target p99 <= 20 ms: ${p99 <= 20 ? 'OK' : 'MISSED'} (${p99} ms)`);
  } finally {
    await redis.stop();
  }
}
