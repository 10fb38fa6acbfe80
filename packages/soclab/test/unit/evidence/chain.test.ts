import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/contracts/canonical.js';
import { headerText } from '../../../src/evidence/hash-chain.js';
import { openEvidenceStore, type SqlEvidenceStore } from '../../../src/evidence/store.js';
import { deleteEvent, insertForgedEvent, swapEvents, tamperPayload } from '../../../src/evidence/tamper.js';

async function seed(store: SqlEvidenceStore, runId: string, n = 8): Promise<void> {
  await store.append(runId, { event_type: 'run.started', payload: { scenario_id: 'BEN-001' } });
  await store.appendMany(
    runId,
    Array.from({ length: n - 1 }, (_, i) => ({ event_type: 'model.turn', payload: { turn: i + 1, text: `é ${i}` } })),
  );
}

function chainSuite(name: string, open: () => Promise<SqlEvidenceStore>) {
  describe(name, () => {
    let store: SqlEvidenceStore;
    const run = () => crypto.randomUUID();
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    it('links events per run with sequences from 1 and verifies', async () => {
      const a = run();
      const b = run();
      await seed(store, a, 5);
      await seed(store, b, 3);
      const events = await store.events(a);
      expect(events.map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5]);
      expect(events[0]!.previous_hash).toBe('0'.repeat(64));
      expect(events[1]!.previous_hash).toBe(events[0]!.event_hash);
      expect(events[2]!.payload).toEqual({ turn: 2, text: 'é 1' });
      const v = await store.verify(a);
      expect(v).toMatchObject({
        valid: true,
        length: 5,
        first_invalid_sequence: null,
        root_hash: events[4]!.event_hash,
      });
      expect((await store.verify(b)).length).toBe(3);
      expect(await store.runIds()).toEqual(expect.arrayContaining([a, b]));
      expect(await store.verify(run())).toMatchObject({ valid: true, length: 0, root_hash: null });
    });

    it('detects a modified payload at its sequence', async () => {
      const id = run();
      await seed(store, id);
      await tamperPayload(store, id, 4, 'text', 'edited');
      expect(await store.verify(id)).toMatchObject({
        valid: false,
        first_invalid_sequence: 4,
        reason: 'payload modified',
      });
    });

    it('detects a deleted event at the gap', async () => {
      const id = run();
      await seed(store, id);
      await deleteEvent(store, id, 5);
      expect(await store.verify(id)).toMatchObject({
        valid: false,
        first_invalid_sequence: 5,
        reason: 'expected sequence 5, found 6',
      });
    });

    it('detects two swapped events at the first of them', async () => {
      const id = run();
      await seed(store, id);
      await swapEvents(store, id, 3, 6);
      const v = await store.verify(id);
      expect(v).toMatchObject({ valid: false, first_invalid_sequence: 3 });
      expect(v.reason).toMatch(/^broken link/);
    });

    it('detects an inserted, correctly linked forgery at the event after it', async () => {
      const id = run();
      await seed(store, id);
      await insertForgedEvent(store, id, 4, { injected: true });
      const v = await store.verify(id);
      expect(v).toMatchObject({ valid: false, first_invalid_sequence: 5 });
      expect(v.reason).toMatch(/^broken link/);
      expect(v.length).toBe(9);
    });

    it('rejects invalid event types before writing', async () => {
      const id = run();
      await expect(store.append(id, { event_type: 'Bad Type', payload: {} })).rejects.toThrow(/invalid event type/);
      await expect(store.append(id, { event_type: `a${'.b'.repeat(60)}`, payload: {} })).rejects.toThrow(
        /invalid event type 'a\.b.*': Too big/,
      );
      await expect(store.append(id, { event_type: '9lives', payload: {} })).rejects.toThrow(/must match/);
      expect((await store.rows(id)).length).toBe(0);
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'soclab-chain-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
chainSuite('hash chain on a SQLite file', () => openEvidenceStore(join(dir, 'nested', 'soclab.sqlite')));

const pgUrl = process.env.HARNESS_TEST_PG_URL;
if (pgUrl) {
  chainSuite('hash chain on PostgreSQL', () => openEvidenceStore(pgUrl));
} else if (process.env.CI) {
  it('PostgreSQL evidence store', () => {
    throw new Error('HARNESS_TEST_PG_URL is not set (CI must provide PostgreSQL)');
  });
} else {
  it.skip('PostgreSQL evidence store (set HARNESS_TEST_PG_URL to a PostgreSQL 15 URL to run)', () => {});
}

describe('canonical header', () => {
  it('is exactly the RFC 8785 canonical JSON of the header fields', () => {
    const row = {
      event_id: 'e-"1"',
      run_id: 'r\u00e9',
      sequence: 12,
      event_type: 'model.turn',
      payload_hash: 'a'.repeat(64),
      previous_hash: 'b'.repeat(64),
      recorded_at: '2026-09-04T08:12:00.000Z',
    };
    expect(headerText(row)).toBe(canonicalJson(row));
  });
});

describe('the store survives reopening', () => {
  it('keeps chains on disk and continues them', async () => {
    const file = join(dir, 'reopen.sqlite');
    const id = crypto.randomUUID();
    const first = await openEvidenceStore(file);
    await seed(first, id, 3);
    await first.close();
    const second = await openEvidenceStore(`sqlite:${file}`);
    await second.append(id, { event_type: 'run.finished', payload: { status: 'complete' } });
    expect(await second.verify(id)).toMatchObject({ valid: true, length: 4 });
    await second.close();
  });
});

describe('rows and checkpoints on SQLite (prepared statements)', () => {
  it('reads rows as the query builder does, saves, replaces and clears a checkpoint, and sees what the builder committed', async () => {
    const store = await openEvidenceStore(join(dir, 'prepared.sqlite'));
    try {
      const id = crypto.randomUUID();
      expect(await store.rows(id)).toEqual([]);
      expect(await store.checkpointOf(id)).toBeNull();
      await seed(store, id, 4);
      const viaBuilder = await store.db
        .selectFrom('audit_events')
        .selectAll()
        .where('run_id', '=', id)
        .orderBy('sequence', 'asc')
        .execute();
      expect(await store.rows(id)).toEqual(viaBuilder);
      expect((await store.rows(id)).map((r) => r.sequence)).toEqual([1, 2, 3, 4]);

      const tail = [{ event_type: 'tool.output', payload: { n: 1 } }];
      await store.saveCheckpoint(id, tail);
      await store.saveCheckpoint(id, [...tail, { event_type: 'tool.output', payload: { n: 2 } }]);
      expect(await store.checkpointOf(id)).toEqual([...tail, { event_type: 'tool.output', payload: { n: 2 } }]);
      await expect(store.saveCheckpoint(id, [{ event_type: 'not a type', payload: {} }])).rejects.toThrow(
        /invalid event type/,
      );
      // A change committed through the query builder (tamper tooling) is what the prepared statements read next.
      await store.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('audit_events').where('run_id', '=', id).where('sequence', '=', 4).execute();
      });
      expect((await store.rows(id)).map((r) => r.sequence)).toEqual([1, 2, 3]);
      await store.clearCheckpoint(id);
      expect(await store.checkpointOf(id)).toBeNull();
      expect(await store.verify(id)).toMatchObject({ valid: true, length: 3 });
    } finally {
      await store.close();
    }
  });
});
