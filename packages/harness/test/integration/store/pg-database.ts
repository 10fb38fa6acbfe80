/**
 * A fresh PostgreSQL database per test file on the server named by HARNESS_TEST_PG_URL, so tests never
 * see each other's rows. Missing variable: fail under CI, skip otherwise.
 */
import pg from 'pg';

export const PG_URL = process.env.HARNESS_TEST_PG_URL;

export const PG_SKIP_MESSAGE =
  'HARNESS_TEST_PG_URL is not set: PostgreSQL store tests skipped (install PostgreSQL 15 and set it, or run .ci/run)';

/** Call at module level: throws under CI when PostgreSQL is missing, else logs why tests are skipped. */
export function requirePgOrSkip(): boolean {
  if (PG_URL) return true;
  if (process.env.CI) throw new Error(`CI is set but ${PG_SKIP_MESSAGE}`);
  console.warn(PG_SKIP_MESSAGE);
  return false;
}

export interface TempDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function createTempDatabase(baseUrl: string, prefix = 'harness_store_test'): Promise<TempDatabase> {
  const name = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
