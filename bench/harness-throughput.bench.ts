/**
 * Harness throughput and memory with the in-process echo agent and one exact_match evaluator.
 * Targets: >= 5,000 cases/s (10,000 cases); peak RSS <= 250 MB for a 100,000-case run.
 * Each figure comes from a fresh child process running the compiled harness (npm run build first).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { itemAt } from '../packages/harness/src/core/item-at.js';

const root = join(import.meta.dirname, '..');
const child = join(root, 'bench/support/throughput-child.mjs');

interface Figures {
  n: number;
  load_ms: number;
  run_ms: number;
  report_ms: number;
  cases_per_s: number;
  max_rss_mb: number;
}

function measure(n: number): Figures {
  const out = execFileSync(process.execPath, [child, String(n)], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').pop() as string) as Figures;
}

// Baseline: a node process that only allocates nothing (its RSS is the floor every figure includes).
const baselineRss = Number(
  execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.resourceUsage().maxRSS / 1024))'], {
    encoding: 'utf8',
  }),
);

const small = itemAt(
  [measure(10_000), measure(10_000), measure(10_000)].sort((a, b) => a.cases_per_s - b.cases_per_s),
  1,
);
console.log(
  `10,000 cases: ${Math.round(small.cases_per_s)} cases/s (run ${Math.round(small.run_ms)} ms, load ${Math.round(small.load_ms)} ms, json report ${Math.round(small.report_ms)} ms)  target >= 5000 cases/s  ${small.cases_per_s >= 5000 ? 'OK' : 'MISSED'}`,
);

const big = measure(100_000);
console.log(
  `100,000 cases: peak RSS ${big.max_rss_mb.toFixed(0)} MB (bare node ${baselineRss.toFixed(0)} MB, ratio ${(big.max_rss_mb / baselineRss).toFixed(1)}x), ${Math.round(big.cases_per_s)} cases/s  target <= 250 MB  ${big.max_rss_mb <= 250 ? 'OK' : 'MISSED'}`,
);
console.log(
  `10k -> 100k peak RSS growth: ${(big.max_rss_mb - small.max_rss_mb).toFixed(0)} MB for 90,000 more results (${small.max_rss_mb.toFixed(0)} -> ${big.max_rss_mb.toFixed(0)} MB)`,
);
