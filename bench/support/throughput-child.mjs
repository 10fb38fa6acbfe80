// Child process for harness-throughput.bench.ts: runs a generated suite through the compiled harness
// (loader -> runner -> journal -> experiment.json -> json report) and prints figures as one JSON line.
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const n = Number(process.argv[2] ?? 10000);
const concurrency = Number(process.argv[3] ?? 8);
const harness = await import('../../packages/harness/dist/index.js');

const dir = mkdtempSync(join(tmpdir(), 'aeh-bench-'));
try {
  // Cases are written in chunks so generating them does not inflate this process's peak RSS.
  const fd = openSync(join(dir, 'cases.jsonl'), 'w');
  for (let i = 0; i < n; i += 1000) {
    let chunk = '';
    for (let j = i; j < Math.min(n, i + 1000); j++) {
      chunk += `${JSON.stringify({ id: `c${j}`, input: `message ${j}`, expected: `message ${j}` })}\n`;
    }
    writeSync(fd, chunk);
  }
  closeSync(fd);
  writeFileSync(
    join(dir, 'suite.yaml'),
    'version: "1.0"\nname: throughput\nagent: { adapter: echo }\nevaluators: [exact_match]\nmetrics: [success_rate, latency]\ntests: file://cases.jsonl\n',
  );
  const t0 = performance.now();
  const suite = await harness.loadSuite(join(dir, 'suite.yaml'));
  const t1 = performance.now();
  const result = await harness.runExperiment({ suite, outDir: join(dir, 'run'), concurrency });
  const t2 = performance.now();
  await harness.reporterRegistry
    .get('json')
    .create({})
    .report(result.view, join(dir, 'run', 'report.json'));
  const t3 = performance.now();
  if (result.progress.done !== n || result.metrics.success_rate.value !== 1)
    throw new Error('run did not complete correctly');
  process.stdout.write(
    `${JSON.stringify({
      n,
      load_ms: t1 - t0,
      run_ms: t2 - t1,
      report_ms: t3 - t2,
      cases_per_s: n / ((t2 - t1) / 1000),
      max_rss_mb: process.resourceUsage().maxRSS / 1024,
    })}\n`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
