import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectJournal, collectRun } from '../../../src/comparison/collect.js';
import { compareTables } from '../../../src/comparison/comparator.js';
import { loadRun } from '../../../src/runner/run-folder.js';
import { cases, experiment } from './fixtures.js';

/** Write an experiment as a journal: header, results (shuffled, with suite indexes), optional end line. */
function writeJournal(
  path: string,
  run: ReturnType<typeof experiment>,
  options: { end?: boolean; shuffle?: boolean } = {},
) {
  const { results, metrics, thresholds, state, finished_at, ...rest } = run;
  const lines = [
    JSON.stringify({
      type: 'header',
      experiment: { ...rest, metrics: {}, thresholds: null, state: 'running', finished_at: null },
    }),
  ];
  const indexed = results.map((result, index) => ({ result, index }));
  if (options.shuffle) indexed.reverse();
  for (const { result, index } of indexed) lines.push(JSON.stringify({ type: 'result', index, result }));
  if (options.end !== false) lines.push(JSON.stringify({ type: 'end', state, finished_at, metrics, thresholds }));
  writeFileSync(path, `${lines.join('\n')}\n`);
}

describe('collectJournal (the fast path of harness compare)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aeh-collect-'));
  const m = { success_rate: { name: 'success_rate', value: 0.7, formatted_value: '70%' } };
  const base = experiment(
    'a',
    cases(
      40,
      (i) => i % 10 < 8,
      (i) => ({ latency: 0.5 + (i % 4) / 10 }),
    ),
    { metrics: m },
  );
  const cand = experiment(
    'b',
    cases(
      40,
      (i) => i % 10 < 6,
      (i) => ({ latency: 0.6 + (i % 4) / 10 }),
    ),
    { metrics: m },
  );

  it('gives the same comparison as reading the runs through loadRun', async () => {
    const a = join(dir, 'a.jsonl');
    const b = join(dir, 'b.jsonl');
    writeJournal(a, base, { shuffle: true });
    writeJournal(b, cand);
    const fast = compareTables(collectJournal(a), collectJournal(b));
    const slow = compareTables(await collectRun(await loadRun(a)), await collectRun(await loadRun(b)));
    expect(fast).toEqual(slow);
    // Written in reverse, still listed in suite order.
    expect(fast.newly_failed_tests.slice(0, 2)).toEqual(['c6#0', 'c7#0']);
    expect(fast.deltas.success_rate).toBeDefined();
  });

  it('keeps the last of duplicate results, skips a truncated last line, and marks a run without an end as cancelled', () => {
    const p = join(dir, 'partial.jsonl');
    writeJournal(
      p,
      experiment(
        'p',
        cases(3, () => true),
      ),
      { end: false },
    );
    const again = experiment('p', [{ id: 'c1', passed: false }]).results[0];
    appendFileSync(
      p,
      `${JSON.stringify({ type: 'result', index: 1, result: again })}\n{"type":"result","result":{"test_id":"c2","sta`,
    );
    const t = collectJournal(p);
    expect(t.keys).toEqual(['c2#0', 'c1#0', 'c0#0'].reverse());
    expect(t.status[t.index.get('c1#0') as number]).toBe('failed');
    expect(t.header.state).toBe('cancelled');
  });

  it('names the file when there is no header', () => {
    const p = join(dir, 'headless.jsonl');
    writeFileSync(p, '{"type":"end","state":"completed"}\n');
    expect(() => collectJournal(p)).toThrow(`${p}: journal has no header line`);
  });
});
