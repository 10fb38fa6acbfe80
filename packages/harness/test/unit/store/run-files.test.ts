import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type JournalEntry, locateRun, readJournal } from '../../../src/store/run-files.js';
import { resultLine, writeRunFolder } from './run-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'run-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function readAll(file: string, from = 0, live = false) {
  const entries: JournalEntry[] = [];
  let offset = from;
  let malformed = 0;
  for await (const chunk of readJournal(file, { from, live, batch: 2 })) {
    entries.push(...chunk.entries);
    offset = chunk.offset;
    malformed += chunk.malformed;
  }
  return { entries, offset, malformed };
}

describe('locateRun', () => {
  it('finds the journal and experiment of a folder, a journal file or an experiment file', () => {
    const folder = writeRunFolder(dir, {
      id: 'a',
      startedAt: '2026-01-01T00:00:00Z',
      cases: [{ id: 'x', status: 'passed' }],
    });
    expect(locateRun(folder)).toEqual({
      location: folder,
      journal: join(folder, 'journal.jsonl'),
      experiment: join(folder, 'experiment.json'),
    });
    expect(locateRun(join(folder, 'journal.jsonl'))?.location).toBe(folder);
    expect(locateRun(join(folder, 'experiment.json'))).toEqual({
      location: join(folder, 'experiment.json'),
      journal: null,
      experiment: join(folder, 'experiment.json'),
    });
    expect(locateRun(join(dir, 'missing'))).toBeNull();
    expect(locateRun(dir)).toBeNull(); // a folder of runs is not a run
  });
});

describe('readJournal', () => {
  it('streams records in batches and reports the byte offset reached', async () => {
    const folder = writeRunFolder(dir, {
      id: 'b',
      startedAt: '2026-01-01T00:00:00Z',
      cases: [
        { id: 'x1', status: 'passed' },
        { id: 'x2', status: 'failed' },
        { id: 'x3', status: 'passed' },
      ],
    });
    const file = join(folder, 'journal.jsonl');
    const all = await readAll(file);
    expect(all.entries.map((e) => e.type)).toEqual(['header', 'result', 'result', 'result', 'end']);
    const { statSync } = await import('node:fs');
    expect(all.offset).toBe(statSync(file).size);
    // Reading from the offset of the second line yields the rest.
    const firstLine = Buffer.byteLength(`${(await import('node:fs')).readFileSync(file, 'utf8').split('\n')[0]}\n`);
    const rest = await readAll(file, firstLine);
    expect(rest.entries[0]).toMatchObject({ type: 'result', result: { test_id: 'x1' } });
  });

  it('leaves a half-written line to the next read when live, drops it when final', async () => {
    const file = join(dir, 'live.jsonl');
    const line = resultLine({ id: 'é-unicode', status: 'passed', output: 'ünïcödé ✓' });
    writeFileSync(file, line + line.slice(0, 30));
    const live = await readAll(file, 0, true);
    expect(live.entries).toHaveLength(1);
    expect(live.offset).toBe(Buffer.byteLength(line));
    expect(live.malformed).toBe(0);
    const final = await readAll(file, 0, false);
    expect(final.entries).toHaveLength(1);
    expect(final.malformed).toBe(0);
    // A complete last line without its newline (writer killed after the JSON) is kept when final.
    writeFileSync(file, line + line.trimEnd());
    expect((await readAll(file)).entries).toHaveLength(2);
  });

  it('counts lines that are not valid records and skips them', async () => {
    const file = join(dir, 'bad.jsonl');
    writeFileSync(
      file,
      `not json\n{"type":"result","result":{"test_id":""}}\n{"type":"mystery"}\n\n${resultLine({ id: 'ok', status: 'passed' })}`,
    );
    const r = await readAll(file);
    expect(r.malformed).toBe(3);
    expect(r.entries).toHaveLength(1);
  });
});
