/**
 * HTML report of a 10,000-case run: render time (target <= 2 s) and load time of the file in headless Chromium
 * (target <= 2 s, to the report's script having run). Baseline in the same run: JSON.stringify of the same run.
 * Also prints the time to filter all rows and to open a drill-down.
 * Needs Chromium: CHROMIUM_PATH or /usr/bin/chromium.
 */
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Experiment } from '../packages/harness/src/core/experiment.js';
import { itemAt } from '../packages/harness/src/core/item-at.js';
import { viewOf } from '../packages/harness/src/core/view.js';
import { htmlReporter } from '../packages/harness/src/reporters/html.js';
import { CHROMIUM, launchChromium } from '../packages/harness/test/helpers/chromium.js';

const N = Number(process.env.BENCH_CASES ?? 10_000);
const out = join(import.meta.dirname, 'out/html-report');
mkdirSync(out, { recursive: true });

function makeRun(): Experiment {
  const results = Array.from({ length: N }, (_, i) => {
    const pass = i % 5 !== 0;
    return {
      test_id: `case-${String(i).padStart(5, '0')}`,
      test_name: `support request ${i}`,
      repeat: 0,
      status: pass ? 'passed' : i % 50 === 0 ? 'error' : 'failed',
      tags: [i % 3 === 0 ? 'refunds' : 'tracking', `region-${i % 7}`],
      input: `Customer ${i}: my order A-${1000 + (i % 900)} arrived damaged. Can I get a refund? ${'Details follow. '.repeat(4)}`,
      expected: 'refund issued',
      output: {
        output: pass
          ? `Your refund of $${(i % 90) + 9}.99 has been issued. ${'We apologise for the trouble. '.repeat(3)}`
          : 'I cannot help with that.',
        error: i % 50 === 0 ? 'upstream timeout after 30s' : null,
        latency: 0.2 + (i % 37) / 40,
        tool_calls: [
          {
            tool_name: 'lookup_order',
            args: { id: `A-${1000 + (i % 900)}` },
            result: { status: 'delivered' },
            duration: 0.05,
          },
          {
            tool_name: 'issue_refund',
            args: { amount: (i % 90) + 9.99 },
            result: pass ? { ok: true } : null,
            duration: 0.2,
            status: pass ? 'success' : 'error',
          },
        ],
        usage: { input_tokens: 150 + (i % 40), output_tokens: 60 + (i % 25) },
        cost: 0.00012,
      },
      evaluations: [
        {
          evaluator: 'contains',
          score: pass ? 1 : 0,
          passed: pass,
          explanation: pass ? "found 'refund'" : "expected 'refund' in the reply",
        },
        {
          evaluator: 'tool_usage',
          score: pass ? 1 : 0.5,
          passed: pass,
          explanation: pass ? 'all expected tools called' : 'issue_refund failed',
        },
      ],
      score: pass ? 1 : 0.25,
      duration: 0.25 + (i % 37) / 40,
    };
  });
  return Experiment.parse({
    id: 'html-bench',
    name: 'html report benchmark',
    state: 'completed',
    suite: { name: 'support', total_cases: N },
    agent: { adapter: 'module', label: 'support-agent' },
    started_at: '2026-01-01T00:00:00.000Z',
    finished_at: '2026-01-01T00:05:00.000Z',
    results,
    metrics: {
      success_rate: {
        name: 'success_rate',
        value: 0.8,
        formatted_value: '80.0%',
        interval: { lower: 0.792, upper: 0.808 },
      },
      latency_p95: { name: 'latency_p95', value: 1.1, formatted_value: '1.10s', direction: 'lower_is_better' },
    },
    environment: { tool_version: '0.1.0', node_version: process.version, platform: process.platform },
  });
}

const run = makeRun();
const file = join(out, 'report.html');
const median = (xs: number[]) =>
  itemAt(
    [...xs].sort((a, b) => a - b),
    Math.floor(xs.length / 2),
  );

const stringify: number[] = [];
for (let i = 0; i < 3; i++) {
  const t = performance.now();
  JSON.stringify(run);
  stringify.push(performance.now() - t);
}
const render: number[] = [];
for (let i = 0; i < 3; i++) {
  const t = performance.now();
  await htmlReporter.create({} as never).report(viewOf(run), file);
  render.push(performance.now() - t);
}
const renderMs = median(render);
console.log(
  `render ${N.toLocaleString('en-US')} cases: ${Math.round(renderMs)} ms (median of 3; ${(renderMs / median(stringify)).toFixed(1)}x JSON.stringify of the run), ` +
    `file ${(statSync(file).size / 1e6).toFixed(1)} MB  target <= 2000 ms  ${renderMs <= 2000 ? 'OK' : 'MISSED'}`,
);

if (!CHROMIUM) {
  console.log('Chromium not found (set CHROMIUM_PATH or apt-get install chromium): load time not measured');
  process.exit(0);
}
const browser = await launchChromium();
try {
  const loads: number[] = [];
  let filterMs = 0;
  let drillMs = 0;
  for (let i = 0; i < 3; i++) {
    const page = await browser.newPage();
    const t = performance.now();
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    await page.waitForSelector('html[data-ready="1"]', { state: 'attached' });
    loads.push(performance.now() - t);
    if (i === 0) {
      filterMs = await page.evaluate(() => {
        const t0 = performance.now();
        const select = document.getElementById('f-status') as HTMLSelectElement;
        select.value = 'failed';
        select.dispatchEvent(new Event('change'));
        return performance.now() - t0;
      });
      const t1 = performance.now();
      await page.click('#grid-rows .row');
      await page.waitForSelector('#drill:not([hidden])');
      drillMs = performance.now() - t1;
    }
    await page.close();
  }
  const loadMs = median(loads);
  console.log(
    `open in Chromium: ${Math.round(loadMs)} ms to loaded and interactive (median of 3)  target <= 2000 ms  ${loadMs <= 2000 ? 'OK' : 'MISSED'}`,
  );
  console.log(
    `filter ${N.toLocaleString('en-US')} rows by status: ${Math.round(filterMs)} ms; open a drill-down: ${Math.round(drillMs)} ms`,
  );
} finally {
  await browser.close();
}
