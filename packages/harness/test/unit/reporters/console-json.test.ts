import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Experiment } from '../../../src/core/experiment.js';
import { viewOf } from '../../../src/core/view.js';
import { renderConsole } from '../../../src/reporters/console.js';
import { jsonReporter } from '../../../src/reporters/json.js';
import { writeExperimentFile } from '../../../src/runner/run-folder.js';

function experiment(n: number, failEvery = 0) {
  return Experiment.parse({
    id: 'e1',
    name: 'report test',
    state: 'completed',
    suite: { name: 'report test', version: '1.0', total_cases: n },
    agent: { adapter: 'echo' },
    started_at: '2026-01-01T00:00:00.000Z',
    environment: { tool_version: '0.1.0', node_version: 'v20', platform: 'linux' },
    metrics: {
      success_rate: {
        name: 'success_rate',
        value: 0.5,
        formatted_value: '50.0%',
        interval: { lower: 0.2, upper: 0.8 },
        details: { power: { n: 10, mdd: 0.6, message: 'with 10 case(s) per run, a comparison can reliably detect X' } },
      },
    },
    thresholds: {
      passed: false,
      checked: 1,
      violations: [
        {
          metric_name: 'success_rate',
          condition: 'minimum',
          threshold_value: 0.9,
          actual_value: 0.5,
          message: 'too low',
        },
      ],
    },
    results: Array.from({ length: n }, (_, i) => {
      const failed = failEvery > 0 && i % failEvery === 0;
      return {
        test_id: `case-${i}`,
        status: failed ? 'failed' : 'passed',
        output: { output: `out ${i}`, latency: 0.01 },
        evaluations: [
          { evaluator: 'exact_match', score: failed ? 0 : 1, passed: !failed, explanation: failed ? 'differs' : '' },
        ],
        score: failed ? 0 : 1,
      };
    }),
  });
}

describe('console reporter', () => {
  it('prints plain text (no ANSI) when colour is off, with metrics, interval and threshold violations', async () => {
    const text = await renderConsole(experiment(4, 2), { color: false });
    expect(text).not.toMatch(/\x1b\[/);
    expect(text).toContain('case-0');
    expect(text).toMatch(/2 passed, 2 failed, 0 errors of 4/);
    expect(text).toMatch(/success_rate\s*│\s*50\.0%\s*│\s*\[20\.0%, 80\.0%\] 95%/);
    expect(text).toContain('Power: with 10 case(s) per run, a comparison can reliably detect X');
    expect(text).toContain('• too low');
  });

  it('summarises long runs: only cases that did not pass, capped', async () => {
    const text = await renderConsole(experiment(500, 10), { color: false, max_failures: 5 });
    expect(text).toContain('Cases that did not pass (50 of 500)');
    expect(text).toContain('… and 45 more');
    expect(text).not.toContain('case-1 ');
  });
});

describe('json reporter', () => {
  it('writes the whole experiment and returns the same text', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeh-json-'));
    const reporter = jsonReporter.create({ max_return_bytes: 8 * 1024 * 1024 });
    const exp = experiment(3);
    const text = await reporter.report(exp, join(dir, 'report.json'));
    const parsed = Experiment.parse(JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')));
    expect(parsed.results).toHaveLength(3);
    expect(parsed.schema_version).toBe('1');
    expect(JSON.parse(text)).toEqual(JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')));
    expect(Experiment.parse(JSON.parse(await reporter.report(exp))).id).toBe('e1');
  });

  it('after experiment.json, writes exactly the bytes it would write itself, whatever the run file became', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeh-json-'));
    const reporter = jsonReporter.create({ max_return_bytes: 8 * 1024 * 1024 });
    // Reference bytes: the reporter alone, for an equal view that no run file was written from.
    await reporter.report(viewOf(experiment(3, 2)), join(dir, 'alone.json'));
    const alone = readFileSync(join(dir, 'alone.json'), 'utf8');

    // Nothing scrubbed: the run file is the report, copied without reading the results again.
    const inner = viewOf(experiment(3, 2));
    let reads = 0;
    const plain = {
      header: inner.header,
      results: () => {
        reads++;
        return inner.results();
      },
    };
    await writeExperimentFile(plain, join(dir, 'experiment.json'), (t) => t);
    expect(reads).toBe(1);
    await reporter.report(plain, join(dir, 'report.json'));
    expect(readFileSync(join(dir, 'report.json'), 'utf8')).toBe(alone);
    expect(reads).toBe(1);

    // The run file changed after it was written: the report is still the view's own bytes, read again.
    appendFileSync(join(dir, 'experiment.json'), ' ');
    await reporter.report(plain, join(dir, 'report-2.json'));
    expect(readFileSync(join(dir, 'report-2.json'), 'utf8')).toBe(alone);
    expect(reads).toBe(2);

    // Something scrubbed from the run file: the report is not that scrubbed file, it is what it always wrote.
    const scrubbed = viewOf(experiment(3, 2));
    await writeExperimentFile(scrubbed, join(dir, 'experiment-s.json'), (t) => t.replaceAll('out 1', '[x]'));
    expect(readFileSync(join(dir, 'experiment-s.json'), 'utf8')).toContain('[x]');
    await reporter.report(scrubbed, join(dir, 'report-s.json'));
    expect(readFileSync(join(dir, 'report-s.json'), 'utf8')).toBe(alone);
  });
});
