import { errorMessage } from '@aeh/harness/errors';
import { itemAt } from '@aeh/harness/item-at';
import { sql } from 'kysely';
import { GENESIS_HASH, newUuid } from '../contracts/common.js';
import { type AuditEventInput, type ChainVerification, EventType, type StoredAuditEvent } from '../contracts/events.js';
import { seededNow, seededUuid } from '../contracts/reproducible.js';
import { type OpenDatabaseOptions, type OpenedDatabase, openEvidenceDatabase } from './database.js';
import { type ChainRow, linkRow, verifyRows } from './hash-chain.js';

/** One event to append: its type and JSON payload. */
export interface NewEvent {
  event_type: string;
  payload: Readonly<Record<string, unknown>>;
  event_id?: string;
}

/** Append-only, per-run hash-chained evidence. */
export interface EvidenceStore {
  /** Append one event (in one transaction) and return it as stored. */
  append(runId: string, event: NewEvent): Promise<StoredAuditEvent>;
  /** Append several events in order, in one transaction. */
  appendMany(runId: string, events: readonly NewEvent[]): Promise<StoredAuditEvent[]>;
  /** Events of a run ordered by sequence, payloads parsed. */
  events(runId: string): Promise<StoredAuditEvent[]>;
  /** Rows exactly as stored (payload as canonical JSON text), ordered by sequence. */
  rows(runId: string): Promise<ChainRow[]>;
  verify(runId: string): Promise<ChainVerification>;
  /** Every run id in the store, oldest first. */
  runIds(): Promise<string[]>;
  rootHash(runId: string): Promise<string | null>;
  /** Keep what the run would append after its turns, should the process die first (replaces the last one). */
  saveCheckpoint?(runId: string, events: readonly NewEvent[]): Promise<void>;
  /** The run ended normally: its checkpoint is no longer needed. */
  clearCheckpoint?(runId: string): Promise<void>;
  close(): Promise<void>;
  readonly location: string;
}

function rowToEventHeader(row: ChainRow) {
  return {
    event_id: row.event_id,
    run_id: row.run_id,
    sequence: row.sequence,
    event_type: row.event_type,
    payload_hash: row.payload_hash,
    previous_hash: row.previous_hash,
    event_hash: row.event_hash,
    recorded_at: row.recorded_at,
  };
}

export function rowToEvent(row: ChainRow): StoredAuditEvent {
  return Object.freeze({
    event_id: row.event_id,
    run_id: row.run_id,
    sequence: row.sequence,
    event_type: row.event_type,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    payload_hash: row.payload_hash,
    previous_hash: row.previous_hash,
    event_hash: row.event_hash,
    recorded_at: row.recorded_at,
  }) as StoredAuditEvent;
}

/** An event type EventType accepts as it is (no surrounding space to trim): most calls, so no zod parse for them. */
const PLAIN_EVENT_TYPE = /^[a-z][a-z0-9_.]*$/;

function checkType(eventType: string): string {
  if (typeof eventType === 'string' && eventType.length <= 120 && PLAIN_EVENT_TYPE.test(eventType)) return eventType;
  const r = EventType.safeParse(eventType);
  if (!r.success) throw new TypeError(`invalid event type '${eventType}': ${r.error.issues[0]?.message}`);
  return r.data;
}

/** Prepared statements of the SQLite append path (prepared once per store, not per event). */
interface SqliteAppendStatements {
  readonly last: { get(runId: string): { sequence: number; event_hash: string } | undefined };
  readonly insert: { run(row: ChainRow): unknown };
  /** Runs `fn` in one BEGIN IMMEDIATE ... COMMIT (better-sqlite3's transaction wrapper). */
  readonly inTransaction: <T>(fn: () => T) => T;
  /** A run's rows by sequence, as the query builder's `selectAll` returns them. */
  readonly rows: { all(runId: string): ChainRow[] };
  readonly saveCheckpoint: { run(row: { run_id: string; events: string; updated_at: string }): unknown };
  readonly clearCheckpoint: { run(runId: string): unknown };
}

/** The SQL-backed store (SQLite by default, PostgreSQL by URL), through Kysely. */
export class SqlEvidenceStore implements EvidenceStore {
  #sqliteStatements: SqliteAppendStatements | undefined;

  constructor(private readonly opened: OpenedDatabase) {}

  /**
   * Appends go through prepared better-sqlite3 statements on SQLite: each run appends its start, every model turn
   * and its end as separate transactions (so a killed run keeps its turns), and through the query builder each one
   * compiled and prepared four statements anew (BEGIN, the last link, the insert, COMMIT). Same rows, same order.
   */
  #sqliteAppend(): SqliteAppendStatements | undefined {
    const sqlite = this.opened.sqlite;
    if (!sqlite || sqlite.readonly) return undefined;
    this.#sqliteStatements ??= {
      last: sqlite.prepare(
        'select sequence, event_hash from audit_events where run_id = ? order by sequence desc limit 1',
      ) as SqliteAppendStatements['last'],
      insert: sqlite.prepare(
        'insert into audit_events (event_id, run_id, sequence, event_type, payload, payload_hash, previous_hash, event_hash, recorded_at) values (@event_id, @run_id, @sequence, @event_type, @payload, @payload_hash, @previous_hash, @event_hash, @recorded_at)',
      ),
      // IMMEDIATE takes the write lock at BEGIN, so another connection's write makes BEGIN wait (busy_timeout) or
      // fail with SQLITE_BUSY before anything was read, never halfway.
      inTransaction: <T>(fn: () => T) => sqlite.transaction(fn).immediate(),
      rows: sqlite.prepare(
        'select * from audit_events where run_id = ? order by sequence asc',
      ) as SqliteAppendStatements['rows'],
      saveCheckpoint: sqlite.prepare(
        'insert into run_checkpoints (run_id, events, updated_at) values (@run_id, @events, @updated_at) on conflict (run_id) do update set events = @events, updated_at = @updated_at',
      ),
      clearCheckpoint: sqlite.prepare('delete from run_checkpoints where run_id = ?'),
    };
    return this.#sqliteStatements;
  }

  /**
   * The prepared statements when they may be used now: on a writable SQLite connection outside a query-builder
   * transaction (tamper tooling), which the builder's own connection lock would make this call wait for.
   */
  #sqliteNow(): SqliteAppendStatements | undefined {
    return this.opened.sqlite?.inTransaction ? undefined : this.#sqliteAppend();
  }

  get location(): string {
    return this.opened.location;
  }

  get dialect(): OpenedDatabase['dialect'] {
    return this.opened.dialect;
  }

  /** The underlying Kysely handle (tests and migrations only). */
  get db(): OpenedDatabase['db'] {
    return this.opened.db;
  }

  async append(runId: string, event: NewEvent): Promise<StoredAuditEvent> {
    const [stored] = await this.appendMany(runId, [event]);
    if (!stored) throw new Error(`appending to run ${runId} stored no event`);
    return stored;
  }

  async appendMany(runId: string, events: readonly NewEvent[]): Promise<StoredAuditEvent[]> {
    if (events.length === 0) return [];
    for (const e of events) checkType(e.event_type);
    // Seeded campaigns: ids and times from the store's own stream (model turns are appended while the run goes
    // on), read once per event before any retry, so a retried write does not shift every later reading.
    const ids = events.map((e) => e.event_id ?? seededUuid('evidence') ?? newUuid());
    const times = events.map(() => (seededNow('evidence') ?? new Date()).toISOString());
    const link = (last: { sequence: number | string; event_hash: string } | undefined): ChainRow[] => {
      let sequence = last ? Number(last.sequence) : 0;
      let previous = last ? last.event_hash : GENESIS_HASH;
      const rows: ChainRow[] = [];
      for (const [i, e] of events.entries()) {
        sequence += 1;
        const row = linkRow({
          event_id: itemAt(ids, i),
          run_id: runId,
          sequence,
          event_type: e.event_type,
          payload: e.payload,
          previous_hash: previous,
          recorded_at: itemAt(times, i),
        });
        previous = row.event_hash;
        rows.push(row);
      }
      return rows;
    };
    // The payloads are the caller's (already JSON); no need to parse the stored text back.
    const stored = (rows: readonly ChainRow[]) =>
      rows.map(
        (row, i) => Object.freeze({ ...rowToEventHeader(row), payload: itemAt(events, i).payload }) as StoredAuditEvent,
      );
    // A concurrent writer on the same run (PostgreSQL) loses the unique (run_id, sequence) race; retry then.
    for (let attempt = 0; ; attempt++) {
      try {
        const prepared = this.#sqliteAppend();
        // Inside a query-builder transaction on this connection (tamper tooling), nest nothing: use the builder.
        if (prepared && !this.opened.sqlite?.inTransaction) {
          return stored(
            prepared.inTransaction(() => {
              const rows = link(prepared.last.get(runId));
              for (const row of rows) prepared.insert.run(row);
              return rows;
            }),
          );
        }
        return await this.opened.db.transaction().execute(async (trx) => {
          // PostgreSQL writers on other connections (API, workers on other machines) take turns per chain: the
          // lock lasts until commit, so two appends to one chain cannot both read the same last event (appends to
          // other chains do not wait). SQLite serializes writers by itself.
          if (this.opened.dialect === 'postgres') {
            await sql`select pg_advisory_xact_lock(hashtextextended(${runId}, 0))`.execute(trx);
          }
          const last = await trx
            .selectFrom('audit_events')
            .select(['sequence', 'event_hash'])
            .where('run_id', '=', runId)
            .orderBy('sequence', 'desc')
            .limit(1)
            .executeTakeFirst();
          const rows = link(last);
          // SQLite caps bound variables per statement; 9 columns x 500 rows stays well below it.
          for (let i = 0; i < rows.length; i += 500) {
            await trx
              .insertInto('audit_events')
              .values(rows.slice(i, i + 500))
              .execute();
          }
          return stored(rows);
        });
      } catch (error) {
        const message = errorMessage(error);
        if (attempt < 5 && /unique|duplicate/i.test(message)) continue;
        // Another connection (a campaign worker thread, the API) wrote to the SQLite file after this transaction
        // read: SQLite refuses the upgrade at once without waiting (SQLITE_BUSY), so wait a moment and redo it.
        if (attempt < 200 && /database is locked|SQLITE_BUSY/i.test(message)) {
          await new Promise((resolve) => setTimeout(resolve, 2 + Math.floor(Math.random() * 8)));
          continue;
        }
        throw error;
      }
    }
  }

  async rows(runId: string): Promise<ChainRow[]> {
    // Every run is verified when it ends (and its checkpoint saved and cleared): prepared statements on SQLite.
    const prepared = this.#sqliteNow();
    if (prepared) return prepared.rows.all(runId);
    const rows = await this.opened.db
      .selectFrom('audit_events')
      .selectAll()
      .where('run_id', '=', runId)
      .orderBy('sequence', 'asc')
      .execute();
    // SQLite returns the sequence as a number already (rows are used as they are); PostgreSQL drivers may not.
    return rows.map((r) => (typeof r.sequence === 'number' ? r : { ...r, sequence: Number(r.sequence) }));
  }

  async events(runId: string): Promise<StoredAuditEvent[]> {
    return (await this.rows(runId)).map(rowToEvent);
  }

  async verify(runId: string): Promise<ChainVerification> {
    return verifyRows(runId, await this.rows(runId));
  }

  async runIds(): Promise<string[]> {
    const rows = await this.opened.db
      .selectFrom('audit_events')
      .select('run_id')
      .where('sequence', '=', 1)
      .orderBy('recorded_at', 'asc')
      .execute();
    const seen = new Set(rows.map((r) => r.run_id));
    // Runs whose first event was deleted still exist; list them after the others.
    const all = await this.opened.db.selectFrom('audit_events').select('run_id').distinct().execute();
    for (const r of all) seen.add(r.run_id);
    return [...seen];
  }

  async saveCheckpoint(runId: string, events: readonly NewEvent[]): Promise<void> {
    for (const e of events) checkType(e.event_type);
    const row = {
      run_id: runId,
      events: JSON.stringify(events.map((e) => ({ event_type: e.event_type, payload: e.payload }))),
      updated_at: (seededNow('checkpoint') ?? new Date()).toISOString(),
    };
    const prepared = this.#sqliteNow();
    if (prepared) {
      prepared.saveCheckpoint.run(row);
      return;
    }
    await this.opened.db
      .insertInto('run_checkpoints')
      .values(row)
      .onConflict((oc) => oc.column('run_id').doUpdateSet({ events: row.events, updated_at: row.updated_at }))
      .execute();
  }

  /** The last checkpoint of a run, or null. */
  async checkpointOf(runId: string): Promise<NewEvent[] | null> {
    const row = await this.opened.db
      .selectFrom('run_checkpoints')
      .select('events')
      .where('run_id', '=', runId)
      .executeTakeFirst();
    return row ? (JSON.parse(row.events) as NewEvent[]) : null;
  }

  async clearCheckpoint(runId: string): Promise<void> {
    const prepared = this.#sqliteNow();
    if (prepared) {
      prepared.clearCheckpoint.run(runId);
      return;
    }
    await this.opened.db.deleteFrom('run_checkpoints').where('run_id', '=', runId).execute();
  }

  async rootHash(runId: string): Promise<string | null> {
    const v = await this.verify(runId);
    return v.root_hash;
  }

  async close(): Promise<void> {
    await this.opened.db.destroy();
  }
}

/** Open the evidence store (see `openEvidenceDatabase` for how the URL is chosen). */
export async function openEvidenceStore(url?: string, options?: OpenDatabaseOptions): Promise<SqlEvidenceStore> {
  return new SqlEvidenceStore(await openEvidenceDatabase(url, options));
}

export type { AuditEventInput };
