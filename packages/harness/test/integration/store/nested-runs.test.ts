import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listRunFolders, openStore } from '../../../src/store/index.js';
import { writeRunFolder } from '../../unit/store/run-fixtures.js';

const root = mkdtempSync(join(tmpdir(), 'harness-nested-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const run = (id: string) => ({
  id,
  suite: 'nested-suite',
  startedAt: '2026-02-01T10:00:00Z',
  cases: [{ id: 'a', status: 'passed' as const }],
});

describe('run discovery at any depth (bounded, symlink-safe)', () => {
  it('an empty or missing runs folder has no runs', () => {
    const empty = join(root, 'empty');
    mkdirSync(empty);
    expect(listRunFolders(empty)).toEqual([]);
    expect(listRunFolders(join(root, 'missing'))).toEqual([]);
  });

  it('finds soclab-style runs/demo/{baseline,protected} and top-level runs; rebuild indexes all of them', async () => {
    const runs = join(root, 'runs');
    writeRunFolder(runs, run('top'), 'top');
    writeRunFolder(join(runs, 'demo'), run('demo-baseline'), 'baseline');
    writeRunFolder(join(runs, 'demo'), run('demo-protected'), 'protected');
    writeRunFolder(join(runs, 'a', 'b', 'c'), run('deep'), 'run');
    // A folder inside a run folder is not another run (the walk stops at a run).
    writeRunFolder(join(runs, 'top'), run('inside'), 'attachments');
    // Hidden folders and node_modules are not searched.
    writeRunFolder(join(runs, '.cache'), run('hidden'), 'r');
    writeRunFolder(join(runs, 'node_modules'), run('dep'), 'r');
    // A link to a run elsewhere, and a link cycle, are not followed.
    writeRunFolder(join(root, 'elsewhere'), run('outside'), 'r');
    symlinkSync(join(root, 'elsewhere'), join(runs, 'link'));
    symlinkSync(runs, join(runs, 'demo', 'loop'));

    expect(listRunFolders(runs).map((p) => p.slice(runs.length + 1))).toEqual([
      'a/b/c/run',
      'demo/baseline',
      'demo/protected',
      'top',
    ]);
    const store = await openStore({ store: join(root, 'index.sqlite'), runsDir: runs });
    try {
      const rebuilt = await store.rebuildIndex(runs);
      expect(rebuilt.errors).toEqual([]);
      expect(rebuilt.indexed.map((r) => r.id).sort()).toEqual(['deep', 'demo-baseline', 'demo-protected', 'top']);
    } finally {
      await store.close();
    }
  });

  it('stops at the depth and folder limits', () => {
    const deep = join(root, 'deep');
    writeRunFolder(join(deep, '1', '2', '3'), run('d3'), 'r');
    expect(listRunFolders(deep, { depth: 3, folders: 100 })).toEqual([]);
    expect(listRunFolders(deep, { depth: 4, folders: 100 })).toHaveLength(1);
    expect(listRunFolders(deep, { depth: 10, folders: 2 })).toEqual([]);
  });
});
