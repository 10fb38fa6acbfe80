import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { makeDirectory } from '../core/directories.js';
import { redactUrl } from '../secrets/scrubber.js';
import type { SqliteHandle } from './indexer.js';
import type { StoreDialect } from './json.js';
import type { StoreDatabase } from './schema.js';

/** Where the run index lives. `display` is safe to print (password redacted). */
export interface StoreTarget {
  readonly dialect: StoreDialect;
  /** SQLite file path (absolute, or `:memory:`) or PostgreSQL connection string. */
  readonly location: string;
  readonly display: string;
}

export interface StoreTargetOptions {
  /** `--store`: a `postgres://` URL, or a SQLite file (`sqlite:path` or a plain path). */
  store?: string | undefined;
  /** Folder of run folders; the default SQLite index is `<runsDir>/index.sqlite`. */
  runsDir?: string | undefined;
  env?: Readonly<Record<string, string | undefined>>;
}

/** Default folder of run folders, relative to the working directory. */
export const DEFAULT_RUNS_DIR = 'runs';
export const INDEX_FILE = 'index.sqlite';

const PG_URL = /^postgres(ql)?:\/\//i;

/** Resolve the store: `--store` wins, then HARNESS_STORE_URL, then `<runsDir>/index.sqlite`. */
export function resolveStoreTarget(options: StoreTargetOptions = {}): StoreTarget {
  const env = options.env ?? process.env;
  const given = options.store?.trim() || env.HARNESS_STORE_URL?.trim();
  if (given && PG_URL.test(given)) {
    return { dialect: 'postgres', location: given, display: redactUrl(given) };
  }
  if (given) {
    const path = given.replace(/^sqlite:(\/\/)?/i, '');
    const location = path === ':memory:' ? path : resolve(path);
    return { dialect: 'sqlite', location, display: `sqlite:${location}` };
  }
  const location = resolve(options.runsDir ?? DEFAULT_RUNS_DIR, INDEX_FILE);
  return { dialect: 'sqlite', location, display: `sqlite:${location}` };
}

/** What `postgresConnectTimeoutMs` waits when neither the URL nor PGCONNECT_TIMEOUT says. */
export const DEFAULT_POSTGRES_CONNECT_TIMEOUT_MS = 15_000;

/**
 * How long to wait for a PostgreSQL server to accept a connection (the pool's `connectionTimeoutMillis`): the URL's
 * `connect_timeout` in whole seconds, as libpq reads it (0 waits forever), else PGCONNECT_TIMEOUT, else 15 s.
 * node-postgres waits forever by default, so a server behind a firewall that drops packets would hang a command
 * instead of failing it. A value that is not a whole number of seconds is ignored.
 */
export function postgresConnectTimeoutMs(url: string, env: NodeJS.ProcessEnv = process.env): number {
  let fromUrl: string | null = null;
  try {
    fromUrl = new URL(url).searchParams.get('connect_timeout');
  } catch {}
  for (const value of [fromUrl, env.PGCONNECT_TIMEOUT]) {
    if (value !== null && value !== undefined && /^\s*\d{1,9}\s*$/.test(value)) return Number(value) * 1000;
  }
  return DEFAULT_POSTGRES_CONNECT_TIMEOUT_MS;
}

const PG_INT8 = 20;
const PG_NUMERIC = 1700;

/** Open a Kysely instance on the target. Drivers load lazily so CLI start-up stays fast. */
export async function openKysely(target: StoreTarget): Promise<Kysely<StoreDatabase>> {
  return (await openStoreConnection(target)).db;
}

/** A Kysely instance on the target, and for SQLite the better-sqlite3 connection it runs on (for prepared statements). */
export async function openStoreConnection(
  target: StoreTarget,
): Promise<{ db: Kysely<StoreDatabase>; sqlite: SqliteHandle | undefined }> {
  if (target.dialect === 'postgres') {
    const pg = (await import('pg')).default;
    const pool = new pg.Pool({
      connectionString: target.location,
      max: 4,
      connectionTimeoutMillis: postgresConnectTimeoutMs(target.location),
      // Counts and sums come back as int8/numeric strings by default; the index only holds values
      // well inside a double's exact range. Scoped to this pool, not pg's global parsers.
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === PG_INT8 || oid === PG_NUMERIC
            ? (v: string) => Number(v)
            : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
      },
    });
    // An idle client dropped by the server (restart, admin kill) must not crash a long-running viewer;
    // the next query checks out a fresh connection or fails with a proper error.
    pool.on('error', () => {});
    return { db: new Kysely<StoreDatabase>({ dialect: new PostgresDialect({ pool }) }), sqlite: undefined };
  }
  // require, not import(): the same CommonJS module the run lock loads (store/run-lock.ts), without the ES module
  // loader's translation of it (cjs-module-lexer start-up and all: ~3% of a 1-case run's instructions).
  const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  if (target.location !== ':memory:') makeDirectory(dirname(target.location));
  const sqlite = new Database(target.location);
  // WAL lets `harness view` read while `harness run` writes; busy_timeout waits out short write locks.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 15000');
  sqlite.pragma('synchronous = NORMAL');
  return { db: new Kysely<StoreDatabase>({ dialect: new SqliteDialect({ database: sqlite }) }), sqlite };
}

/** The default SQLite index path for a runs folder. */
export function defaultIndexPath(runsDir: string = DEFAULT_RUNS_DIR): string {
  return resolve(join(runsDir, INDEX_FILE));
}
