import { describe, expect, it } from 'vitest';
import { markdownReporter } from '../../../src/reporters/markdown.js';
import { defined } from '../../helpers/defined.js';
import { cases, experiment } from '../comparison/fixtures.js';

const report = (run: Parameters<ReturnType<typeof markdownReporter.create>['report']>[0], options = {}) =>
  markdownReporter.create(options as never).report(run);

describe('markdown reporter', () => {
  const run = experiment(
    'md-run',
    [
      { id: 'a', passed: true, name: 'refund | intent' },
      {
        id: 'b',
        passed: false,
        evaluations: [
          { evaluator: 'contains', score: 0, passed: false, explanation: 'wanted <b>"Refund"</b>\nnot | this' },
        ],
      },
      { id: 'c', status: 'error' },
    ],
    {
      metrics: {
        success_rate: {
          name: 'success_rate',
          value: 1 / 3,
          formatted_value: '33.3%',
          interval: { lower: 0.06, upper: 0.79 },
          description: 'share of cases passed',
        },
        latency_p95: { name: 'latency_p95', value: 1.2, formatted_value: '1.20s', direction: 'lower_is_better' },
      },
    },
  );
  defined(run.results[2], 'result 2').output.error = 'timeout after 30s';

  it('summarises the run with metric intervals and lists failures before all results', async () => {
    const md = await report(run);
    expect(md).toContain('# Evaluation Report: run md-run');
    expect(md).toContain('- **Passed**: 1 (33.3%)');
    expect(md).toContain('- **Failed**: 2 (1 agent error)');
    expect(md).toContain('| **Success Rate** | `33.3%` | 0.06 – 0.79 | Higher is better | share of cases passed |');
    expect(md).toContain('| **Latency P95** | `1.20s` |  | Lower is better |  |');
    expect(md.indexOf('## Failures (2)')).toBeLessThan(md.indexOf('## Test Results'));
    expect(md).toContain('| ⚠️ Error | case c | `0.00` | `1.00 s` | agent error: timeout after 30s |');
  });

  it('keeps table rows intact: pipes escaped, line breaks flattened, HTML neutralised', async () => {
    const md = await report(run);
    expect(md).toContain('refund \\| intent');
    expect(md).toContain('contains: wanted &lt;b&gt;"Refund"&lt;/b&gt; not \\| this');
    for (const line of md.split('\n').filter((l) => l.startsWith('| ✅') || l.startsWith('| ❌'))) {
      // Unescaped pipes = the six column separators of a five-column row.
      expect(line.replace(/\\\|/g, '').split('|')).toHaveLength(7);
    }
  });

  it('fits a pull-request comment even for a 5,000-case run, saying what it left out', async () => {
    const big = experiment(
      'big',
      cases(
        5000,
        (i) => i % 3 !== 0,
        () => ({ output: 'x'.repeat(50) }),
      ),
    );
    const md = await report(big);
    expect(md.length).toBeLessThanOrEqual(60_000);
    expect(md).toContain('## Failures (1667)');
    expect(md).toMatch(/…and \d+ more failures/);
    expect(md).toMatch(/…and \d+ more results/);
    const small = await report(big, { max_chars: 5_000 });
    expect(small.length).toBeLessThanOrEqual(5_000);
  });
});
