import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { makeDirectory } from '@aeh/harness/directories';
import { errorMessage } from '@aeh/harness/errors';
import { redactUrl, withoutUrlCredentials } from '@aeh/harness/secrets';
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type { ChainRow } from './hash-chain.js';

/** The `audit_events` table holds the hash chain's rows exactly as the chain defines them (one declaration). */
export type AuditEventsTable = ChainRow;

/** What an in-progress run would append after its model turns, kept beside the chain (see evidence/checkpoint.ts). */
export interface RunCheckpointsTable {
  run_id: string;
  /** JSON array of `{event_type, payload}`. */
  events: string;
  updated_at: string;
}

export interface EvidenceDatabase {
  audit_events: AuditEventsTable;
  run_checkpoints: RunCheckpointsTable;
}

export type EvidenceDialect = 'sqlite' | 'postgres';

export interface OpenedDatabase {
  readonly db: Kysely<EvidenceDatabase>;
  readonly dialect: EvidenceDialect;
  /** Where the data lives, with any password removed (safe to print). */
  readonly location: string;
  /** The SQLite connection under `db` (SQLite only): the evidence append path uses prepared statements on it. */
  readonly sqlite?: Database.Database;
}

export const DEFAULT_SQLITE_PATH = 'runs/soclab.sqlite';

/** Which database a URL names: `postgres://` / `postgresql://` → PostgreSQL; anything else is a SQLite path. */
export function describeDatabaseUrl(url: string): { dialect: EvidenceDialect; target: string } {
  if (/^postgres(ql)?:\/\//i.test(url)) return { dialect: 'postgres', target: url };
  const path = url.replace(/^sqlite:(\/\/)?/i, '').replace(/^file:(\/\/)?/i, '');
  return { dialect: 'sqlite', target: path === '' ? DEFAULT_SQLITE_PATH : path };
}

/**
 * The evidence database to write cannot be opened or prepared (a folder that cannot be created, a file that is not
 * SQLite, a PostgreSQL server that refuses): nothing can be recorded, so callers stop before their first run.
 * The message names the database (password removed) and the reason.
 */
export class EvidenceDatabaseUnavailableError extends Error {
  override name = 'EvidenceDatabaseUnavailableError';
  constructor(
    /** The database, safe to print. */
    readonly location: string,
    reason: string,
  ) {
    super(`evidence database ${location} cannot be opened: ${reason}`);
  }
}

/** The evidence database to read does not exist (or holds no evidence table); nothing was created. */
export class EvidenceDatabaseMissingError extends Error {
  override name = 'EvidenceDatabaseMissingError';
}

export interface OpenDatabaseOptions {
  /**
   * Only read: the database must already exist and hold the evidence table. Nothing is created, migrated or
   * written, so a mistyped path is an error instead of a new, empty database that "verifies".
   */
  readOnly?: boolean;
}

/**
 * Open the evidence database: `url` argument, else `SOCLAB_DATABASE_URL`, else SQLite at `runs/soclab.sqlite`
 * (relative to the working directory). `:memory:` gives a private in-memory SQLite database.
 */
export async function openEvidenceDatabase(url?: string, options: OpenDatabaseOptions = {}): Promise<OpenedDatabase> {
  const chosen = url ?? process.env.SOCLAB_DATABASE_URL ?? DEFAULT_SQLITE_PATH;
  const { dialect, target } = describeDatabaseUrl(chosen);
  let db: Kysely<EvidenceDatabase>;
  let location: string;
  let sqliteHandle: Database.Database | undefined;
  if (dialect === 'postgres') {
    // The PostgreSQL driver (~40 modules) loads only when a PostgreSQL URL is used: SQLite runs never need it.
    const [{ default: pg }, { postgresConnectTimeoutMs }] = await Promise.all([
      import('pg'),
      import('@aeh/harness/store'),
    ]);
    location = redactUrl(target);
    let pool: InstanceType<typeof pg.Pool>;
    try {
      // A server that never answers fails the open after the URL's connect_timeout (default 15 s), not never.
      pool = new pg.Pool({
        connectionString: target,
        max: 4,
        connectionTimeoutMillis: postgresConnectTimeoutMs(target),
      });
    } catch (error) {
      throw new EvidenceDatabaseUnavailableError(location, withoutUrlCredentials(errorMessage(error), target));
    }
    // An idle pooled connection that the server closes (restart, failover, an administrator's terminate) emits
    // 'error' on the pool; unhandled, that would kill the whole process. The pool drops that client, and the next
    // query opens a new connection or fails with its own error where it can be handled.
    pool.on('error', () => {});
    db = new Kysely<EvidenceDatabase>({ dialect: new PostgresDialect({ pool }) });
  } else {
    const file = target === ':memory:' ? ':memory:' : resolve(target);
    if (options.readOnly) {
      if (file === ':memory:' || !existsSync(file)) {
        throw new EvidenceDatabaseMissingError(`no evidence database at ${file}`);
      }
    }
    let sqlite: Database.Database | undefined;
    try {
      if (!options.readOnly && file !== ':memory:') makeDirectory(dirname(file));
      sqlite = new Database(file, options.readOnly ? { readonly: true, fileMustExist: true } : {});
      if (!options.readOnly) sqlite.pragma('journal_mode = WAL');
      sqlite.pragma('busy_timeout = 5000');
      if (!options.readOnly) sqlite.pragma('synchronous = NORMAL');
      if (options.readOnly) {
        const table = sqlite.prepare("select name from sqlite_master where type = 'table' and name = 'audit_events'");
        if (!table.get()) {
          sqlite.close();
          throw new EvidenceDatabaseMissingError(`${file} is not a soclab evidence database (no audit_events table)`);
        }
      }
    } catch (error) {
      if (error instanceof EvidenceDatabaseMissingError) throw error;
      if (sqlite?.open) sqlite.close();
      if (!options.readOnly) throw new EvidenceDatabaseUnavailableError(file, errorMessage(error));
      throw new EvidenceDatabaseMissingError(`${file} is not a readable SQLite database: ${errorMessage(error)}`);
    }
    db = new Kysely<EvidenceDatabase>({ dialect: new SqliteDialect({ database: sqlite }) });
    location = file;
    sqliteHandle = sqlite;
  }
  if (!options.readOnly) {
    // The first statement is where PostgreSQL connects and SQLite finds out the file is not a database: either way
    // nothing could be recorded, so the caller hears it now, with the database named, not on its first event.
    try {
      await migrate(db);
    } catch (error) {
      await db.destroy().catch(() => {});
      const reason = errorMessage(error);
      throw new EvidenceDatabaseUnavailableError(
        location,
        dialect === 'postgres' ? withoutUrlCredentials(reason, target) : reason,
      );
    }
  }
  return { db, dialect, location, ...(sqliteHandle ? { sqlite: sqliteHandle } : {}) };
}

async function migrate(db: Kysely<EvidenceDatabase>): Promise<void> {
  await db.schema
    .createTable('audit_events')
    .ifNotExists()
    .addColumn('event_id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('run_id', 'varchar(128)', (c) => c.notNull())
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('event_type', 'varchar(120)', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('payload_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('previous_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('event_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('recorded_at', 'varchar(40)', (c) => c.notNull())
    .addUniqueConstraint('audit_events_run_sequence', ['run_id', 'sequence'])
    .execute();
  await db.schema.createIndex('audit_events_run').ifNotExists().on('audit_events').column('run_id').execute();
  await db.schema
    .createTable('run_checkpoints')
    .ifNotExists()
    .addColumn('run_id', 'varchar(128)', (c) => c.primaryKey())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(40)', (c) => c.notNull())
    .execute();
}
