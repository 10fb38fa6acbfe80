import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TestCaseResult } from '../../../src/core/result.js';
import { jsonlReporter } from '../../../src/reporters/jsonl.js';
import { loadRun } from '../../../src/runner/run-folder.js';
import { cases, experiment } from '../comparison/fixtures.js';

const run = experiment(
  'jl',
  cases(
    5,
    (i) => i !== 2,
    (i) => ({ output: i === 1 ? 'line one\nline two \u2028 end' : `out ${i}` }),
  ),
  {
    metrics: { success_rate: { name: 'success_rate', value: 0.8, formatted_value: '80.0%' } },
  },
);

describe('jsonl reporter', () => {
  it('writes one valid result per line', async () => {
    const text = await jsonlReporter.create({} as never).report(run);
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    const parsed = lines.map((l) => TestCaseResult.parse(JSON.parse(l)));
    expect(parsed.map((r) => r.test_id)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    expect(parsed[1]?.output.output).toBe('line one\nline two \u2028 end');
  });

  it('can write a journal that harness loads back as the same run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeh-jsonl-'));
    const dest = join(dir, 'out', 'run.jsonl');
    const text = await jsonlReporter.create({ journal: true } as never).report(run, dest);
    expect(readFileSync(dest, 'utf8')).toBe(text);
    const view = await loadRun(dest);
    expect(view.header.id).toBe('jl');
    expect(view.header.state).toBe('completed');
    expect(view.header.metrics.success_rate?.value).toBe(0.8);
    const ids: string[] = [];
    for await (const r of view.results()) ids.push(`${r.test_id}:${r.status}`);
    expect(ids).toEqual(['c0:passed', 'c1:passed', 'c2:failed', 'c3:passed', 'c4:passed']);
  });
});
