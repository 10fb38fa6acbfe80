import pg from 'pg';
import { afterAll, it } from 'vitest';

// The PostgreSQL scaffolding of the tests that need a real server: HARNESS_TEST_PG_URL names it (CI starts one),
// and each test file works in a database of its own, dropped when the file ends.

/** The PostgreSQL the tests may use, or undefined (they skip locally; under CI they fail). */
export const PG_URL: string | undefined = process.env.HARNESS_TEST_PG_URL || undefined;

/** Under CI without HARNESS_TEST_PG_URL, a failing test named `what`: a skipped PostgreSQL test never passes CI. */
export function failWithoutPostgresUnderCi(what: string): void {
  if (!PG_URL && process.env.CI) {
    it(what, () => {
      throw new Error('HARNESS_TEST_PG_URL is not set (CI must provide PostgreSQL)');
    });
  }
}

/** Run `fn` on a connection to the server's default database (to create and drop databases). */
export async function asAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  if (!PG_URL) throw new Error('HARNESS_TEST_PG_URL is not set');
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A database of this test file's own, named `<prefix>_<pid>_<time>`: `create()` makes it and answers its URL; it is
 * dropped (connections forced closed) after the file's tests. Call inside the describe block that uses it.
 */
export function ownDatabase(prefix: string): { name: string; create(): Promise<string> } {
  const name = `${prefix}_${process.pid}_${Date.now()}`;
  let created = false;
  afterAll(async () => {
    if (created) await asAdmin((c) => c.query(`drop database if exists ${name} with (force)`));
  });
  return {
    name,
    async create() {
      await asAdmin((c) => c.query(`create database ${name}`));
      created = true;
      const url = new URL(PG_URL ?? '');
      url.pathname = `/${name}`;
      return url.toString();
    },
  };
}
