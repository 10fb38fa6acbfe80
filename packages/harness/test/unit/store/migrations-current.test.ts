import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openStoreConnection, resolveStoreTarget } from '../../../src/store/connect.js';
import { MIGRATION_TABLE, migrateStore, sqliteStoreIsCurrent } from '../../../src/store/migrations.js';
import { openStore } from '../../../src/store/run-store.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempFile(): string {
  const d = mkdtempSync(join(tmpdir(), 'aeh-migrations-'));
  dirs.push(d);
  return join(d, 'index.sqlite');
}

describe('SQLite index opened without the Migrator when it is current', () => {
  it('answers true only for exactly this version of the schema', async () => {
    // Degenerate first: an empty file has no migration table.
    const file = tempFile();
    const empty = new Database(file);
    expect(sqliteStoreIsCurrent(empty)).toBe(false);
    empty.close();

    const { db, sqlite } = await openStoreConnection(resolveStoreTarget({ store: file }));
    await migrateStore(db as never, 'sqlite');
    await db.destroy();
    expect(sqlite).toBeDefined();

    const current = new Database(file);
    expect(sqliteStoreIsCurrent(current)).toBe(true);
    // A migration this version does not know (a newer harness wrote the index): not current, the Migrator decides.
    current.prepare(`insert into "${MIGRATION_TABLE}" ("name", "timestamp") values ('9999_future', 'x')`).run();
    expect(sqliteStoreIsCurrent(current)).toBe(false);
    // One of ours missing: not current either.
    current.prepare(`delete from "${MIGRATION_TABLE}" where "name" in ('9999_future', '0002_covering_indexes')`).run();
    expect(sqliteStoreIsCurrent(current)).toBe(false);
    current.close();
  });

  it('opens a current index and a new one alike, and refuses one written by a newer harness as before', async () => {
    const file = tempFile();
    const first = await openStore({ store: file });
    await first.close();
    const again = await openStore({ store: file });
    expect((await again.listRuns()).items).toEqual([]);
    await again.close();

    const raw = new Database(file);
    raw.prepare(`insert into "${MIGRATION_TABLE}" ("name", "timestamp") values ('9999_future', 'x')`).run();
    raw.close();
    await expect(openStore({ store: file })).rejects.toThrow(/cannot open the run index/);
  });
});
