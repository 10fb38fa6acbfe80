/**
 * OpenTelemetry must cost nothing when it is off. Medians, in one run against a bare `node -e 0`:
 * - `harness --version` with no OTLP variables and with OTEL_EXPORTER_OTLP_ENDPOINT set (it never traces);
 * - `harness run` of a 4-case echo suite without tracing, with the endpoint set but OTEL_SDK_DISABLED=true, and
 *   traced to a loopback receiver in this process, which is the price of tracing.
 * Target: --version and the untraced run within noise (<= 5%) of each other whatever the variables say.
 * Uses the compiled CLI (npm run build first).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const root = join(import.meta.dirname, '..');
const bin = join(root, 'packages/harness/bin/harness.js');
const RUNS = 11;
const dir = mkdtempSync(join(tmpdir(), 'bench-otel-'));
const suite = join(dir, 'suite.yaml');
writeFileSync(
  suite,
  `version: "1.0"
name: otel-bench
agent: { adapter: echo }
tests:
${[1, 2, 3, 4].map((i) => `  - { id: c${i}, input: "hello ${i}", expected: "hello ${i}" }`).join('\n')}
`,
);
const clean = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' };

let out = 0;
function once(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd: root, env, stdio: 'ignore' });
    child.on('close', (code) =>
      code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${args.join(' ')} exited with ${code}`)),
    );
  });
}
async function median(args: string[], env: NodeJS.ProcessEnv = clean): Promise<number> {
  const times: number[] = [];
  const argv = () => args.map((a) => (a === '@OUT' ? join(dir, `run-${out++}`) : a));
  await once(argv(), env); // warm the file cache
  for (let i = 0; i < RUNS; i++) times.push(await once(argv(), env));
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? 0;
}

// A loopback OTLP/HTTP receiver that accepts every export, so the traced run measures tracing, not retries.
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

const run = [bin, 'run', suite, '--out', '@OUT', '--format', 'json', '--no-index', '--no-progress'];
const baseline = await median(['-e', '0']);
const version = await median([bin, '--version']);
const versionEndpoint = await median([bin, '--version'], { ...clean, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
const plain = await median(run);
const disabled = await median(run, { ...clean, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SDK_DISABLED: 'true' });
const traced = await median(run, { ...clean, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
receiver.close();

const row = (name: string, ms: number, against: number) =>
  `${name.padEnd(40)} median ${ms.toFixed(0).padStart(5)} ms  (${(ms / baseline).toFixed(2)}x node -e 0; ${((ms / against - 1) * 100).toFixed(1).padStart(5)}% vs untraced)`;
console.log(`node -e 0 (baseline)                     median ${baseline.toFixed(0).padStart(5)} ms  over ${RUNS} runs`);
console.log(row('harness --version', version, version));
console.log(row('harness --version, endpoint set', versionEndpoint, version));
console.log(row('harness run (4 cases), no tracing', plain, plain));
console.log(row('harness run, endpoint set but disabled', disabled, plain));
console.log(row('harness run, traced (SDK loaded)', traced, plain));
const within = Math.abs(versionEndpoint / version - 1) <= 0.05 && Math.abs(disabled / plain - 1) <= 0.05;
console.log(`untraced paths within 5% of each other: ${within ? 'OK' : 'MISSED (noise? rerun)'}`);
