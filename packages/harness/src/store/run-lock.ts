import { randomUUID } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { isErrnoException } from '../core/errors.js';

/**
 * One writer per run folder. `harness run` (new or `--resume`) holds an exclusive lock on `<run>/run.lock` for as
 * long as it appends to the journal; a second process on the same folder is refused with the holder's pid.
 *
 * The lock is SQLite's own file lock (`BEGIN EXCLUSIVE` on an empty database, through better-sqlite3): a POSIX
 * record lock the kernel releases when the holder exits in any way, SIGKILL and power loss included. So a crashed
 * run never leaves a stale lock to clean up by hand, and a reused pid can never keep a dead run's folder locked.
 * `run.lock.json` says who holds it (pid, host, since); it is informational, and a leftover one from a crashed
 * run is simply overwritten by the next holder. The lock file itself is never deleted: a process waiting on the
 * old inode and a process creating a new one would both believe they hold the lock.
 *
 * @example
 *   const lock = acquireRunLock('runs/20260101-120000-demo');
 *   try { ...append to the journal... } finally { lock.release(); }
 */

export const RUN_LOCK_FILE = 'run.lock';
export const RUN_LOCK_HOLDER_FILE = 'run.lock.json';

export interface RunLockHolder {
  pid: number;
  host: string;
  since: string;
}

/** The run folder is locked by a live process (exit code 2: the command was used on a busy folder). */
export class RunLockedError extends Error {
  readonly code = 'AEH_ERR_RUN_LOCKED';
  override name = 'RunLockedError';
  readonly exitCode = 2;
  constructor(
    readonly runDir: string,
    readonly holder: RunLockHolder | null,
  ) {
    const who = holder
      ? `process ${holder.pid}${holder.host !== hostname() ? ` on ${holder.host}` : ''} (since ${holder.since})`
      : 'another process';
    super(
      `run folder ${runDir} is in use by ${who}: one process writes a run folder at a time; wait for it to finish, or stop it and resume again`,
    );
  }
}

export interface RunLock {
  readonly runDir: string;
  /** Release the lock (idempotent). The process exiting releases it too. */
  release(): void;
}

type DatabaseCtor = typeof BetterSqlite3;
let Database: DatabaseCtor | null = null;

function database(): DatabaseCtor {
  // Loaded on first use: commands that never write a run folder do not pay for the native module.
  Database ??= createRequire(import.meta.url)('better-sqlite3') as DatabaseCtor;
  return Database;
}

function readHolder(runDir: string): RunLockHolder | null {
  try {
    const h = JSON.parse(readFileSync(join(runDir, RUN_LOCK_HOLDER_FILE), 'utf8')) as Partial<RunLockHolder>;
    if (typeof h.pid === 'number' && typeof h.host === 'string' && typeof h.since === 'string') {
      return { pid: h.pid, host: h.host, since: h.since };
    }
  } catch {
    // Missing or being replaced: the caller retries.
  }
  return null;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return isErrnoException(err) && err.code === 'EPERM';
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Take the run folder's lock, or throw RunLockedError naming the live holder. Never waits for the holder: a
 * second writer is a mistake to report, not a queue to join.
 */
export function acquireRunLock(runDir: string): RunLock {
  const Db = database();
  const db = new Db(join(runDir, RUN_LOCK_FILE), { timeout: 0 });
  try {
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if (!(isErrnoException(err) && err.code === 'SQLITE_BUSY')) throw err;
    throw new RunLockedError(runDir, currentHolder(runDir));
  }
  // Holder file written whole (temp file + rename), so a reader never sees half of it.
  const holder: RunLockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  const tmp = join(runDir, `${RUN_LOCK_HOLDER_FILE}.${randomUUID().slice(0, 8)}.tmp`);
  writeFileSync(tmp, `${JSON.stringify(holder)}\n`);
  renameSync(tmp, join(runDir, RUN_LOCK_HOLDER_FILE));
  let held = true;
  return {
    runDir,
    release() {
      if (!held) return;
      held = false;
      // The holder file goes first: once the lock is free, a new holder may already be writing its own.
      const current = readHolder(runDir);
      if (current?.pid === process.pid) rmSync(join(runDir, RUN_LOCK_HOLDER_FILE), { force: true });
      try {
        db.exec('ROLLBACK');
      } finally {
        db.close();
      }
    },
  };
}

/**
 * Who holds the lock: the holder file, once it names a live process. Just after the holder took the lock, the
 * file may still name a crashed predecessor; it is replaced within milliseconds, so wait briefly for it.
 */
function currentHolder(runDir: string): RunLockHolder | null {
  let last: RunLockHolder | null = null;
  for (let i = 0; i < 40; i++) {
    last = readHolder(runDir);
    if (last && (last.host !== hostname() || alive(last.pid))) return last;
    sleepSync(25);
  }
  return last && alive(last.pid) ? last : null;
}
