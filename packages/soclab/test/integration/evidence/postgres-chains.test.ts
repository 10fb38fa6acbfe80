/**
 * The shared PostgreSQL store under concurrent writers (API and worker processes each hold their own pool): appends
 * to many chains from several connections at once never interleave within a chain; each chain stays one gapless,
 * hash-linked sequence. Each run uses a database of its own.
 */
import { describe, expect, it } from 'vitest';
import { openEvidenceStore, type SqlEvidenceStore } from '../../../src/evidence/store.js';
import { failWithoutPostgresUnderCi, ownDatabase, PG_URL } from '../../helpers/postgres.js';

failWithoutPostgresUnderCi('evidence chains on PostgreSQL');

describe.skipIf(!PG_URL)('evidence chains on shared PostgreSQL (set HARNESS_TEST_PG_URL to run)', () => {
  const database = ownDatabase('soclab_chains');

  it('keeps every chain gapless and valid while three writers append to the same chains at once', async () => {
    const url = await database.create();
    // Three stores = three connection pools, as the API and two workers on other machines would have.
    const writers: SqlEvidenceStore[] = [];
    for (let i = 0; i < 3; i += 1) writers.push(await openEvidenceStore(url));
    try {
      const chains = ['run-a', 'run-b', 'run-c', 'run-d'];
      const perWriter = 15;
      await Promise.all(
        writers.flatMap((store, w) =>
          chains.map(async (runId) => {
            for (let i = 0; i < perWriter; i += 1) {
              // Alternate single appends and batches, the two paths a run takes.
              const event = { event_type: 'test.step', payload: { writer: w, i } };
              if (i % 3 === 0) await store.appendMany(runId, [event, { ...event, payload: { batch: true } }]);
              else await store.append(runId, event);
            }
          }),
        ),
      );
      const reader = writers[0]!;
      const expected = writers.length * (perWriter + Math.ceil(perWriter / 3));
      for (const runId of chains) {
        const rows = await reader.rows(runId);
        expect(rows.map((r) => r.sequence)).toEqual(Array.from({ length: expected }, (_, i) => i + 1));
        const verdict = await reader.verify(runId);
        expect(verdict.valid).toBe(true);
        // Each batch's two events are adjacent in its chain: a batch is never split by another writer's event.
        rows.forEach((row, i) => {
          if (JSON.parse(row.payload).batch === true) {
            expect(i).toBeGreaterThan(0);
            expect(JSON.parse(rows[i - 1]!.payload)).toHaveProperty('writer');
          }
        });
      }
    } finally {
      await Promise.all(writers.map((w) => w.close()));
    }
  }, 120_000);
});
