import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openStoreConnection, resolveStoreTarget } from '../../../src/store/connect.js';
import { indexRun, type StoreContext } from '../../../src/store/indexer.js';
import { jsonCodec } from '../../../src/store/json.js';
import { migrateStore } from '../../../src/store/migrations.js';
import { resultLine, writeRunFolder } from './run-fixtures.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Index `runs` into a fresh SQLite file, with the prepared statements or through Kysely only. */
async function indexInto(file: string, runs: string[], prepared: boolean): Promise<void> {
  const { db, sqlite } = await openStoreConnection(resolveStoreTarget({ store: file }));
  try {
    await migrateStore(db as never, 'sqlite');
    const ctx: StoreContext = { db, codec: jsonCodec('sqlite'), sqlite: prepared ? sqlite : undefined };
    for (const run of runs) await indexRun(ctx, run);
  } finally {
    await db.destroy();
  }
}

/** Every case row as stored (column types included), in insertion order. */
function caseRows(file: string): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true });
  try {
    const dump = (table: string) =>
      db.prepare(`select rowid as row_id, *, ${typesOf(db, table)} from "${table}" order by rowid`).all() as unknown[];
    return {
      case_results: dump('case_results'),
      case_evaluations: dump('case_evaluations'),
      case_tags: dump('case_tags'),
    };
  } finally {
    db.close();
  }
}

function typesOf(db: Database.Database, table: string): string {
  const columns = db.prepare(`select name from pragma_table_info('${table}')`).all() as { name: string }[];
  return columns.map((c) => `typeof("${c.name}") as "type_of_${c.name}"`).join(', ');
}

describe('SQLite index: case rows through prepared statements', () => {
  it('stores exactly the rows the query builder stores, for new runs, duplicates and an appended tail', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aeh-index-prepared-'));
    dirs.push(root);
    const runs = join(root, 'runs');
    // Degenerate first: a run with no cases; then duplicates (last wins), repeats, tags, errors, NUL and odd text.
    const empty = writeRunFolder(runs, { id: 'run-empty', startedAt: '2026-01-01T09:00:00Z', cases: [] });
    const full = writeRunFolder(runs, {
      id: 'run-full',
      startedAt: '2026-01-01T10:00:00Z',
      cases: [
        { id: 'c1', status: 'passed', tags: ['a', 'b', 'a'], cost: 0.25, evals: { exact_match: true, contains: 0.4 } },
        { id: 'c2', status: 'failed', error: 'boom \u0000 "quoted"', evals: { exact_match: false } },
        { id: 'c2', status: 'passed', evals: { exact_match: true } },
        { id: 'c3', status: 'error', repeat: 0 },
        { id: 'c3', status: 'passed', repeat: 1, name: "it's <b>bold</b>", output: 'ünïcödé 💡' },
        { id: 'c4', status: 'skipped' },
      ],
    });
    const live = writeRunFolder(runs, {
      id: 'run-live',
      startedAt: '2026-01-01T11:00:00Z',
      state: 'running',
      cases: [{ id: 'l1', status: 'passed', evals: { exact_match: true } }],
    });

    const prepared = join(root, 'prepared.sqlite');
    const built = join(root, 'built.sqlite');
    await indexInto(prepared, [empty, full, live], true);
    await indexInto(built, [empty, full, live], false);
    // The live run grows: the incremental path inserts the tail (and a re-sent key) the same way.
    appendFileSync(join(live, 'journal.jsonl'), resultLine({ id: 'l2', status: 'failed', tags: ['t'] }));
    appendFileSync(join(live, 'journal.jsonl'), resultLine({ id: 'l1', status: 'failed' }));
    await indexInto(prepared, [live], true);
    await indexInto(built, [live], false);

    const a = caseRows(prepared);
    const b = caseRows(built);
    // c1, c2 (last of two), c3#0, c3#1, c4, then l1 (replaced by the tail's) and l2; tags a, b (once each) and t.
    expect(a.case_results).toHaveLength(7);
    expect(a.case_evaluations).toHaveLength(3);
    expect(a.case_tags).toHaveLength(3);
    expect(a).toEqual(b);
  });
});
