import { describe, expect, it } from 'vitest';
import {
  formatLike,
  formatSeconds,
  signedLike,
  signText,
  TIME_LABELS,
  wallSeconds,
} from '../../../src/core/durations.js';
import { consoleReporter } from '../../../src/reporters/console.js';
import { htmlReporter } from '../../../src/reporters/html.js';
import { secs } from '../../../web/src/format.js';
import { defined } from '../../helpers/defined.js';
import { experiment } from '../comparison/fixtures.js';

/** Defect 8: one definition of each duration, the same label and the same text in console, HTML and viewer. */
describe('durations', () => {
  it('formats seconds once: ms under a second, seconds under two minutes, then min + s (never "60 s")', () => {
    expect(formatSeconds(0.066)).toBe('66 ms');
    expect(formatSeconds(0.34)).toBe('340 ms');
    expect(formatSeconds(17)).toBe('17.00 s');
    expect(formatSeconds(137)).toBe('2 min 17 s');
    expect(formatSeconds(179.7)).toBe('3 min 0 s');
    expect(formatSeconds(null)).toBe('–');
    // The viewer uses the very same function.
    for (const v of [0.066, 0.34, 17, 137, 179.7]) expect(secs(v)).toBe(formatSeconds(v));
  });

  it("intervals and deltas are written in the metric's own unit", () => {
    const plain = (x: number) => x.toFixed(2);
    expect(formatLike('0.32s', 0.3, plain)).toBe('300 ms');
    expect(formatLike('80.0%', 0.8, plain)).toBe('80.0%');
    expect(formatLike('$0.0007', 0.00069, plain)).toBe('$0.00069');
    expect(formatLike('12 tokens/pass', 3, plain)).toBe('3.00');
    expect(signedLike('0.09s', 0.09 - 0.32, plain)).toBe('-230 ms');
    expect(signedLike('60.0%', -0.2, plain)).toBe('-20.0 pt');
    expect(signedLike('$0.0012', 0.0005, plain)).toBe('+$0.0005');
    // A change that rounds to zero in the shown unit has no sign (never `-0 ms`, `-0.0 pt`, `-0.00 s`).
    expect(signedLike('0.09s', -0.0004, plain)).toBe('0 ms');
    expect(signedLike('60.0%', -0.0001, plain)).toBe('0.0 pt');
    expect(signText(-1e-9, (0).toFixed(2) + ' s')).toBe('0.00 s');
    expect(signText(-0.004, '4 ms')).toBe('-4 ms');
    expect(signText(2, '2 min 0 s')).toBe('+2 min 0 s');
  });

  it('wall time comes from the run stamps, not from summing concurrent call times', () => {
    expect(wallSeconds('2026-01-01T00:00:00.000Z', '2026-01-01T00:00:17.000Z')).toBe(17);
    expect(wallSeconds('2026-01-01T00:00:00.000Z', null)).toBeNull();
    expect(wallSeconds('garbage', '2026-01-01T00:00:17.000Z')).toBeNull();
  });

  it('console and HTML show the same call time for the same case, and the agent-reported latency apart', async () => {
    const run = experiment('t', [{ id: 'slowly-reported', passed: false }]);
    const [result] = run.results;
    defined(result, 'the one result').duration = 0.066; // measured by the harness
    defined(result, 'the one result').output.latency = 0.34; // reported by the agent
    const text = await consoleReporter.create({ color: false } as never).report(run);
    expect(text).toContain(TIME_LABELS.callTime);
    expect(text).toMatch(/slowly-reported.*66 ms/);
    expect(text).not.toMatch(/slowly-reported.*340 ms/);
    const html = await htmlReporter.create({} as never).report(run);
    expect(html).toContain('"call_time":"66 ms"');
    expect(html).toContain('"reported_latency":"340 ms"');
    expect(html).toContain('Call time');
  });
});
