/**
 * `soclab verify-chain --db` reads only: a missing path, a file that is not SQLite and a SQLite file without
 * evidence are usage errors (exit 2) that create nothing, so a typo cannot pass CI with "no runs".
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { sealInterruptedRuns } from '../../src/evidence/interrupted.js';
import { openEvidenceStore } from '../../src/evidence/store.js';
import { soclabIsolated } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'soclab-verify-db-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('soclab verify-chain --db', () => {
  it('exits 2 naming a missing database and creates neither the file nor its folder', async () => {
    const missing = join(dir, 'typo', 'evidnce.sqlite');
    const r = await soclabIsolated(['verify-chain', '--db', missing]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`no evidence database at ${missing}`);
    expect(r.stdout).not.toContain('no runs');
    expect(existsSync(join(dir, 'typo'))).toBe(false);
    const fromEnv = await soclabIsolated(['verify-chain', '--json'], { SOCLAB_DATABASE_URL: missing });
    expect(fromEnv.code).toBe(2);
    expect(existsSync(join(dir, 'typo'))).toBe(false);
  });

  it('exits 2 for a file that is not SQLite, and for SQLite without the evidence table (left unchanged)', async () => {
    const text = join(dir, 'notes.sqlite');
    writeFileSync(text, 'just some notes\n');
    const r = await soclabIsolated(['verify-chain', '--db', text]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${text} is not a readable SQLite database`);

    const other = join(dir, 'other.sqlite');
    const db = new Database(other);
    db.exec('create table notes (x text)');
    db.close();
    const before = readdirSync(dir).sort();
    const o = await soclabIsolated(['verify-chain', '--db', other]);
    expect(o.code).toBe(2);
    expect(o.stderr).toContain('is not a soclab evidence database (no audit_events table)');
    const check = new Database(other, { readonly: true });
    expect(check.prepare("select name from sqlite_master where type = 'table'").all()).toEqual([{ name: 'notes' }]);
    check.close();
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it('an existing empty evidence database still verifies (0 runs, exit 0), and a real chain exits 0', async () => {
    const file = join(dir, 'evidence.sqlite');
    const store = await openEvidenceStore(file);
    await store.close();
    const empty = await soclabIsolated(['verify-chain', '--db', file]);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toContain('no runs in');

    const filled = await openEvidenceStore(file);
    await filled.append('run-a', { event_type: 'run.started', payload: { scenario_id: 'BEN-001' } });
    await filled.append('run-a', { event_type: 'run.finished', payload: { status: 'complete' } });
    await filled.close();
    const ok = await soclabIsolated(['verify-chain', '--db', file, '--json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({
      valid: true,
      runs: [{ run_id: 'run-a', valid: true, length: 2, ending: 'finished' }],
    });
  });

  it('shows how each chain ends: an interrupted run is valid but not finished, an open one says open', async () => {
    const file = join(dir, 'interrupted.sqlite');
    const store = await openEvidenceStore(file);
    await store.append('run-cut', { event_type: 'run.started', payload: { scenario_id: 'BEN-001' } });
    await store.append('run-open', { event_type: 'run.started', payload: { scenario_id: 'BEN-002' } });
    await sealInterruptedRuns(store, 'the server stopped', new Set(['run-cut']));
    await store.close();
    const r = await soclabIsolated(['verify-chain', '--db', file, '--json']);
    expect(r.code).toBe(0);
    const runs = JSON.parse(r.stdout).runs.map((x: { run_id: string; ending: string; length: number }) => [
      x.run_id,
      x.ending,
      x.length,
    ]);
    expect(runs.sort()).toEqual([
      ['run-cut', 'interrupted', 2],
      ['run-open', 'open', 1],
    ]);
    const human = await soclabIsolated(['verify-chain', '--db', file]);
    expect(human.stdout).toMatch(/run-cut.*interrupted/);
  });
});
