// openStoreConnection (the raw better-sqlite3 handle beside Kysely) stays internal to the store.

// The store's public face has always offered it; it lives with the other secret handling.
export { redactUrl } from '../secrets/scrubber.js';
export {
  DEFAULT_POSTGRES_CONNECT_TIMEOUT_MS,
  DEFAULT_RUNS_DIR,
  defaultIndexPath,
  INDEX_FILE,
  openKysely,
  postgresConnectTimeoutMs,
  resolveStoreTarget,
  type StoreTarget,
  type StoreTargetOptions,
} from './connect.js';
export {
  type IndexOutcome,
  type IndexRunOptions,
  listRunFolders,
  RunNotFoundError,
  type SyncOutcome,
} from './indexer.js';
export { type JsonCodec, jsonCodec, type StoreDialect } from './json.js';
export { MIGRATION_TABLE, migrateStore } from './migrations.js';
export { type CaseDeltaReport, type HistoryOptions, type ListRunsOptions, RunLookupError } from './queries.js';
export { locateRun, type RunSource } from './run-files.js';
export { openStore, RunStore, StoreOpenError } from './run-store.js';
export type * from './schema.js';
export type * from './types.js';
