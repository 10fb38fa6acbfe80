export * from './connect.js';
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
