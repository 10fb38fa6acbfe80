import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { notingStore } from '../../../src/evidence/noting-store.js';
import { openEvidenceStore } from '../../../src/evidence/store.js';

const dir = mkdtempSync(join(tmpdir(), 'soclab-noting-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('notingStore', () => {
  it('degenerate: reading through it notes nothing, and answers what the store answers', async () => {
    const store = await openEvidenceStore(join(dir, 'reads.sqlite'));
    await store.append('run-a', { event_type: 'run.started', payload: { scenario_id: 'BEN-001' } });
    const noted: string[] = [];
    const view = notingStore(store, async (runId) => {
      noted.push(runId);
    });
    expect(await view.runIds()).toEqual(['run-a']);
    expect(await view.rows('run-a')).toEqual(await store.rows('run-a'));
    expect((await view.verify('run-a')).valid).toBe(true);
    expect(await view.rootHash('run-a')).toBe(await store.rootHash('run-a'));
    expect(view.location).toBe(store.location);
    expect(noted).toEqual([]);
    await store.close();
  });

  it("awaits the note before each write lands, for append and appendMany, on the write's chain", async () => {
    const store = await openEvidenceStore(join(dir, 'writes.sqlite'));
    const seenAtNote: { runId: string; eventsAlready: number }[] = [];
    const view = notingStore(store, async (runId) => {
      // Slower than the write: a note that were not awaited would see the event already stored.
      await new Promise((r) => setTimeout(r, 20));
      seenAtNote.push({ runId, eventsAlready: (await store.events(runId)).length });
    });
    await view.append('run-b', { event_type: 'run.started', payload: {} });
    await view.appendMany('run-b', [
      { event_type: 'model.turn', payload: { turn: 1 } },
      { event_type: 'model.turn', payload: { turn: 2 } },
    ]);
    await view.append('run-c', { event_type: 'run.started', payload: {} });
    expect(seenAtNote).toEqual([
      { runId: 'run-b', eventsAlready: 0 },
      { runId: 'run-b', eventsAlready: 1 },
      { runId: 'run-c', eventsAlready: 0 },
    ]);
    expect((await store.events('run-b')).map((e) => e.event_type)).toEqual(['run.started', 'model.turn', 'model.turn']);
    await store.close();
  });

  it('a failing note stops the write (nothing lands unnoted), and closing the view leaves the shared store open', async () => {
    const store = await openEvidenceStore(join(dir, 'shared.sqlite'));
    const refusing = notingStore(store, async () => {
      throw new Error('could not note');
    });
    await expect(refusing.append('run-d', { event_type: 'run.started', payload: {} })).rejects.toThrow(
      'could not note',
    );
    expect(await store.events('run-d')).toEqual([]);
    await refusing.close();
    await store.append('run-d', { event_type: 'run.started', payload: {} });
    expect(await store.runIds()).toEqual(['run-d']);
    await store.close();
  });
});
