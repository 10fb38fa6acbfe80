import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import { errorMessage } from '../core/errors.js';
import type { StoreDialect } from './json.js';

/** Name of the table where Kysely's Migrator records applied migrations. */
export const MIGRATION_TABLE = 'harness_migration';

/**
 * Migrations live in code (not files) so the built CLI carries them. Names sort in application order;
 * never edit a released migration, add the next one.
 */
function storeMigrations(dialect: StoreDialect): Record<string, Migration> {
  // JSON is jsonb in PostgreSQL (queryable, validated) and text in SQLite.
  const json = dialect === 'postgres' ? 'jsonb' : 'text';
  const real = 'double precision';
  return {
    '0001_initial': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('experiments')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('suite_name', 'text', (c) => c.notNull())
          .addColumn('suite_version', 'text', (c) => c.notNull())
          .addColumn('suite_hash', 'text', (c) => c.notNull())
          .addColumn('agent_adapter', 'text', (c) => c.notNull())
          .addColumn('agent_label', 'text')
          .addColumn('agent_version', 'text')
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('started_at', 'text', (c) => c.notNull())
          .addColumn('finished_at', 'text')
          .addColumn('location', 'text')
          .addColumn('total', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('passed', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('errored', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('skipped', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('mean_score', real)
          .addColumn('total_cost', real)
          .addColumn('total_duration', real, (c) => c.notNull().defaultTo(0))
          .addColumn('thresholds_passed', 'integer')
          .addColumn('git_commit', 'text')
          .addColumn('tool_version', 'text')
          .addColumn('header', json, (c) => c.notNull())
          .addColumn('journal_offset', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('indexed_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('experiments_suite_started')
          .on('experiments')
          .columns(['suite_name', 'started_at'])
          .execute();
        await db.schema.createIndex('experiments_started').on('experiments').column('started_at').execute();
        await db.schema.createIndex('experiments_location').on('experiments').column('location').execute();

        await db.schema
          .createTable('case_results')
          .addColumn('experiment_id', 'text', (c) => c.notNull())
          .addColumn('test_id', 'text', (c) => c.notNull())
          .addColumn('repeat', 'integer', (c) => c.notNull())
          .addColumn('seq', 'integer', (c) => c.notNull())
          .addColumn('test_name', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('score', real, (c) => c.notNull())
          .addColumn('duration', real, (c) => c.notNull())
          .addColumn('attempts', 'integer', (c) => c.notNull())
          .addColumn('cost', real)
          .addColumn('input_tokens', 'integer')
          .addColumn('output_tokens', 'integer')
          .addColumn('error', 'text')
          .addColumn('started_at', 'text')
          .addColumn('finished_at', 'text')
          .addColumn('result', json, (c) => c.notNull())
          .addPrimaryKeyConstraint('case_results_pk', ['experiment_id', 'test_id', 'repeat'])
          .execute();
        await db.schema.createIndex('case_results_seq').on('case_results').columns(['experiment_id', 'seq']).execute();
        await db.schema
          .createIndex('case_results_status')
          .on('case_results')
          .columns(['experiment_id', 'status'])
          .execute();
        // Flakiness and history look a case up across runs.
        await db.schema
          .createIndex('case_results_test')
          .on('case_results')
          .columns(['test_id', 'experiment_id'])
          .execute();

        await db.schema
          .createTable('case_evaluations')
          .addColumn('experiment_id', 'text', (c) => c.notNull())
          .addColumn('test_id', 'text', (c) => c.notNull())
          .addColumn('repeat', 'integer', (c) => c.notNull())
          .addColumn('idx', 'integer', (c) => c.notNull())
          .addColumn('evaluator', 'text', (c) => c.notNull())
          .addColumn('score', real, (c) => c.notNull())
          .addColumn('passed', 'integer', (c) => c.notNull())
          .addColumn('error', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint('case_evaluations_pk', ['experiment_id', 'test_id', 'repeat', 'idx'])
          .execute();
        await db.schema
          .createIndex('case_evaluations_evaluator')
          .on('case_evaluations')
          .columns(['experiment_id', 'evaluator', 'passed'])
          .execute();

        await db.schema
          .createTable('case_tags')
          .addColumn('experiment_id', 'text', (c) => c.notNull())
          .addColumn('test_id', 'text', (c) => c.notNull())
          .addColumn('repeat', 'integer', (c) => c.notNull())
          .addColumn('tag', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('case_tags_pk', ['experiment_id', 'test_id', 'repeat', 'tag'])
          .execute();
        await db.schema.createIndex('case_tags_tag').on('case_tags').columns(['experiment_id', 'tag']).execute();

        await db.schema
          .createTable('metric_values')
          .addColumn('experiment_id', 'text', (c) => c.notNull())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('value', real, (c) => c.notNull())
          .addColumn('formatted_value', 'text', (c) => c.notNull())
          .addColumn('direction', 'text', (c) => c.notNull())
          .addColumn('lower', real)
          .addColumn('upper', real)
          .addColumn('level', real)
          .addColumn('sample_size', 'integer')
          .addColumn('error', 'text')
          .addPrimaryKeyConstraint('metric_values_pk', ['experiment_id', 'name'])
          .execute();
        await db.schema
          .createIndex('metric_values_name')
          .on('metric_values')
          .columns(['name', 'experiment_id'])
          .execute();
      },
      async down(db: Kysely<unknown>) {
        for (const t of ['metric_values', 'case_tags', 'case_evaluations', 'case_results', 'experiments']) {
          await db.schema.dropTable(t).ifExists().execute();
        }
      },
    },
    // Covering indexes so the run page's aggregates (per-evaluator and per-tag pass counts) and the case
    // grid's default order are answered from indexes alone; case_tags learns whether its case passed.
    '0002_covering_indexes': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .alterTable('case_tags')
          .addColumn('passed', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
        await sql`update case_tags set passed = coalesce((select case when c.status = 'passed' then 1 else 0 end
          from case_results c where c.experiment_id = case_tags.experiment_id and c.test_id = case_tags.test_id
          and c.${sql.ref('repeat')} = case_tags.${sql.ref('repeat')}), 0)`.execute(db);
        await db.schema.dropIndex('case_tags_tag').execute();
        await db.schema
          .createIndex('case_tags_tag')
          .on('case_tags')
          .columns(['experiment_id', 'tag', 'passed', 'test_id', 'repeat'])
          .execute();
        await db.schema.dropIndex('case_evaluations_evaluator').execute();
        await db.schema
          .createIndex('case_evaluations_evaluator')
          .on('case_evaluations')
          .columns(['experiment_id', 'evaluator', 'passed', 'error', 'score', 'test_id', 'repeat'])
          .execute();
        await db.schema.dropIndex('case_results_seq').execute();
        await db.schema
          .createIndex('case_results_seq')
          .on('case_results')
          .columns(['experiment_id', 'seq', 'test_id', 'repeat'])
          .execute();
      },
    },
  };
}

/**
 * True when a SQLite index already has exactly this version's migrations recorded, read with one statement on the
 * raw connection: then opening it needs no Migrator (its lock table, lock and queries cost a short run a few ms of
 * cold code). Any doubt (no table yet, a missing or unknown migration, an error) answers false and the Migrator runs.
 */
export function sqliteStoreIsCurrent(sqlite: {
  prepare(source: string): { pluck(): { all(...params: unknown[]): unknown[] } };
}): boolean {
  try {
    const applied = sqlite.prepare(`select "name" from "${MIGRATION_TABLE}" order by "name"`).pluck().all();
    const known = Object.keys(storeMigrations('sqlite')).sort();
    return applied.length === known.length && known.every((name, i) => applied[i] === name);
  } catch {
    return false;
  }
}

/** Bring the index schema up to date. Safe to call on every open (the Migrator takes a lock). */
export async function migrateStore(db: Kysely<unknown>, dialect: StoreDialect): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => storeMigrations(dialect) };
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: `${MIGRATION_TABLE}_lock`,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    const reason = errorMessage(error);
    throw new Error(`run index migration ${failed ?? ''} failed: ${reason}`.replace('  ', ' '));
  }
}
