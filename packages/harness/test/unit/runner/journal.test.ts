import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestCaseResult } from '../../../src/core/result.js';
import type { ExperimentHeader } from '../../../src/core/view.js';
import { indexJournal, JournalWriter } from '../../../src/runner/journal.js';
import { loadRun, writeExperimentFile } from '../../../src/runner/run-folder.js';

const header: ExperimentHeader = {
  schema_version: '1',
  id: 'exp1',
  name: 'journal test',
  state: 'running',
  suite: { name: 's', version: '1.0', content_hash: 'h', total_cases: 2 },
  agent: { adapter: 'echo', options: {} },
  started_at: '2026-01-01T00:00:00.000Z',
  finished_at: null,
  metrics: {},
  thresholds: null,
  environment: { tool_version: '0.1.0', node_version: 'v20', platform: 'linux', git_commit: null },
  metadata: {},
};

function result(id: string, repeat: number, status: TestCaseResult['status'], text = id): TestCaseResult {
  return {
    test_id: id,
    test_name: id,
    repeat,
    status,
    tags: [],
    output: {
      output: text,
      error: null,
      latency: 0.1,
      time_to_first_token: null,
      tool_calls: [],
      trace: null,
      usage: null,
      cost: null,
      cost_is_estimated: false,
      metadata: {},
    },
    evaluations: [],
    score: status === 'passed' ? 1 : 0,
    duration: 0.1,
    attempts: 1,
    metadata: {},
  };
}

describe('journal', () => {
  it('tolerates a truncated last line, keeps the last duplicate, and orders by case then repeat', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeh-journal-'));
    const path = join(dir, 'journal.jsonl');
    const w = JournalWriter.create(path);
    w.header(header);
    w.result(result('b', 0, 'failed'), 1);
    w.result(result('a', 1, 'passed'), 0);
    w.result(result('a', 0, 'failed', 'first try'), 0);
    w.result(result('a', 0, 'passed', 'second try'), 0);
    w.close();
    appendFileSync(path, '{"type":"result","index":1,"result":{"test_id":"b","rep'); // killed mid-write

    const idx = indexJournal(path);
    expect(idx.badLines).toBe(1);
    expect(idx.results.map((r) => r.key)).toEqual(['a#0', 'a#1', 'b#0']);
    const view = await loadRun(dir);
    expect(view.header.state).toBe('cancelled'); // no end line: partial
    const got: TestCaseResult[] = [];
    for await (const r of view.results()) got.push(r);
    expect(got[0]?.output.output).toBe('second try');

    // Appending after a truncated line starts on a fresh line, so the next entry stays readable.
    const again = JournalWriter.append(path);
    again.result(result('c', 0, 'passed'), 2);
    again.end({ state: 'completed', finished_at: '2026-01-01T00:01:00.000Z', metrics: {}, thresholds: null });
    again.close();
    const after = indexJournal(path);
    expect(after.results.map((r) => r.key)).toEqual(['a#0', 'a#1', 'b#0', 'c#0']);
    expect(after.end?.state).toBe('completed');

    // experiment.json written by streaming is a valid Experiment that loadRun reads back.
    const file = join(dir, 'experiment.json');
    await writeExperimentFile(await loadRun(path), file, (t) => t.replaceAll('second try', '[x]'));
    const exp = JSON.parse(readFileSync(file, 'utf8'));
    expect(exp.results).toHaveLength(4);
    expect(exp.results[0].output.output).toBe('[x]');
    const reread = await loadRun(file);
    expect(reread.header.state).toBe('completed');
  });

  it('rejects a file that is not an experiment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeh-journal-'));
    writeFileSync(join(dir, 'x.json'), '{"hello": 1}');
    await expect(loadRun(join(dir, 'x.json'))).rejects.toThrow(/not an experiment file/);
  });
});
