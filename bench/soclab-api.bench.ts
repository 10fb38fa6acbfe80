/**
 * soclab API throughput on loopback.
 * Target: GET /api/v1/scenarios >= 3,000 requests/s with autocannon, 10 connections for 10 s (bearer token checked
 * in constant time, rate limiting on, security headers, the 33-scenario listing); report p99 latency.
 * Same-run baseline: GET /health (no token, no rate limit) on the same server, for the ratio.
 * Extra figure: /health p99 while a 99-run campaign executes in the same server process (event-loop yielding).
 * The server runs in its own process (`soclab serve`), so autocannon does not share its event loop.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TOKEN = 'bench-operator-token-0123456789abcdef';
const dir = mkdtempSync(join(os.tmpdir(), 'soclab-api-bench-'));
writeFileSync(
  join(dir, 'server.yaml'),
  [
    `data_dir: ${JSON.stringify(join(dir, 'data'))}`,
    'tokens:',
    `  - { name: bench, role: operator, token: ${TOKEN} }`,
    // The limit stays on (its cost is part of the figure) but high enough not to reject the benchmark's load.
    'rate_limit: { max: 10000000, window_ms: 60000 }',
  ].join('\n'),
);

const server: ChildProcess = spawn(
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
  { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, SOCLAB_API_TOKENS: '' } },
);
const base = await new Promise<string>((resolve, reject) => {
  let out = '';
  server.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.includes('\n')) resolve(out.split('\n')[0]!.trim());
  });
  server.once('exit', (code) => reject(new Error(`soclab serve exited with ${code}`)));
});

const auth = { authorization: `Bearer ${TOKEN}` };
const run = (path: string, duration: number, headers: Record<string, string> = {}) =>
  autocannon({ url: `${base}${path}`, connections: 10, duration, headers });

try {
  // Warm up (JIT, route caches, connection setup).
  await run('/api/v1/scenarios', 2, auth);

  const scenarios = await run('/api/v1/scenarios', 10, auth);
  const health = await run('/health', 5);

  // Responsiveness while a campaign runs in the same server process.
  const started = await fetch(`${base}/api/v1/campaigns`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ mode: 'protected', repeats: 3 }),
  });
  const { campaign_id: campaignId } = (await started.json()) as { campaign_id: string };
  const during = await autocannon({ url: `${base}/health`, connections: 2, duration: 4 });
  const status = (await (await fetch(`${base}/api/v1/campaigns/${campaignId}`, { headers: auth })).json()) as {
    status: string;
    progress: { done: number; total: number };
  };

  const rps = scenarios.requests.average;
  const ok = rps >= 3000 && scenarios.non2xx === 0 && scenarios.errors === 0;
  console.log('soclab API (autocannon, 10 connections, loopback)');
  console.log(
    `  GET /api/v1/scenarios  ${rps.toFixed(0)} req/s  latency p50 ${scenarios.latency.p50} ms  p99 ${scenarios.latency.p99} ms  ` +
      `(${scenarios['2xx']} ok, ${scenarios.non2xx} non-2xx, ${scenarios.errors} errors, ${(scenarios.throughput.average / 1e6).toFixed(1)} MB/s)`,
  );
  console.log(
    `  target >= 3000 req/s: ${ok ? 'OK' : 'MISSED'}; baseline GET /health ${health.requests.average.toFixed(0)} req/s ` +
      `(p99 ${health.latency.p99} ms) -> scenarios/health ratio ${(rps / health.requests.average).toFixed(2)}`,
  );
  console.log(
    `  while a campaign runs (${status.progress.done}/${status.progress.total} runs done after 4 s, ${status.status}): ` +
      `GET /health p50 ${during.latency.p50} ms, p99 ${during.latency.p99} ms, max ${during.latency.max} ms`,
  );
  console.log(
    `  machine: ${os.cpus().length} CPUs, load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
} finally {
  const exited = new Promise((r) => server.once('exit', r));
  server.kill('SIGTERM');
  await exited;
  rmSync(dir, { recursive: true, force: true });
}
