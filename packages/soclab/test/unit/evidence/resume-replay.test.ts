/**
 * The evidence store a resumed campaign writes through (evidence/resume-replay.ts): a seeded run that regenerates
 * the events its chain already holds appends nothing twice and continues the same chain; a run that regenerates
 * anything else is refused at the first differing event, with nothing written. Real SQLite files.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withReproducibleScope } from '../../../src/contracts/reproducible.js';
import { ResumeMismatchError, resumingStore } from '../../../src/evidence/resume-replay.js';
import { type EvidenceStore, type NewEvent, openEvidenceStore } from '../../../src/evidence/store.js';
import { tempDir } from '../../helpers/api.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const RUN = 'run-under-resume';
const EPOCH = Date.UTC(2026, 0, 1);
const events: NewEvent[] = [
  { event_type: 'run.started', payload: { scenario_id: 'BEN-001' } },
  { event_type: 'model.turn', payload: { stage: 'triage', text: 'looking' } },
  { event_type: 'model.turn', payload: { stage: 'scope', text: 'found it' } },
  { event_type: 'gateway.approval_requested', payload: { approval_id: 'a-1' } },
  { event_type: 'gateway.approval_decided', payload: { approval_id: 'a-1', decision: 'approved' } },
  { event_type: 'run.finished', payload: { status: 'complete' } },
];

/** Write `list` to the run's chain inside the seeded scope, one event per append, as a run does. */
async function writeSeeded(store: EvidenceStore, list: readonly NewEvent[], seed = 7): Promise<void> {
  await withReproducibleScope(seed, 'protected/BEN-001/0/1', EPOCH, async () => {
    for (const e of list) await store.append(RUN, e);
  });
}

async function freshStore(name: string) {
  const dir = tempDir('soclab-resume-replay-');
  dirs.push(dir);
  return openEvidenceStore(join(dir, `${name}.sqlite`));
}

describe('resumingStore', () => {
  it('refuses a regenerated event that differs from the stored one, writing nothing', async () => {
    const store = await freshStore('differs');
    try {
      await writeSeeded(store, events.slice(0, 3));
      const before = await store.rows(RUN);
      const changed = events
        .slice(0, 3)
        .map((e, i) => (i === 2 ? { ...e, payload: { stage: 'scope', text: 'x' } } : e));
      const error = await writeSeeded(resumingStore(store), changed).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResumeMismatchError);
      expect(error).toMatchObject({ runId: RUN, sequence: 3 });
      expect((error as Error).message).toContain('model.turn differs');
      expect(await store.rows(RUN)).toEqual(before);
    } finally {
      await store.close();
    }
  });

  it('refuses an unseeded re-run (fresh ids and times never match) and another seed', async () => {
    const store = await freshStore('unseeded');
    try {
      await writeSeeded(store, events.slice(0, 2));
      const resumed = resumingStore(store);
      await expect(resumed.append(RUN, events[0]!)).rejects.toBeInstanceOf(ResumeMismatchError);
      await expect(writeSeeded(resumingStore(store), events.slice(0, 2), 8)).rejects.toBeInstanceOf(
        ResumeMismatchError,
      );
      expect(await store.rows(RUN)).toHaveLength(2);
    } finally {
      await store.close();
    }
  });

  it('regenerates the stored prefix without appending and continues the same chain, as an uninterrupted run', async () => {
    const straight = await freshStore('straight');
    const resumed = await freshStore('resumed');
    try {
      await writeSeeded(straight, events);
      // The first run stopped after the approval request; the re-run regenerates everything.
      await writeSeeded(resumed, events.slice(0, 4));
      const prefix = await resumed.rows(RUN);
      await writeSeeded(resumingStore(resumed), events);
      const rows = await resumed.rows(RUN);
      expect(rows.slice(0, prefix.length)).toEqual(prefix);
      expect(rows.map((r) => r.event_type)).toEqual(events.map((e) => e.event_type));
      expect(rows.map((r) => r.event_hash)).toEqual((await straight.rows(RUN)).map((r) => r.event_hash));
      expect(await resumed.verify(RUN)).toMatchObject({ valid: true, length: events.length });
    } finally {
      await straight.close();
      await resumed.close();
    }
  });
});
