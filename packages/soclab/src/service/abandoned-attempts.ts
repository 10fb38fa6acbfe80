/**
 * The chains of a dead `soclab worker`'s attempt, closed by whoever runs the scenario again. Each attempt of a
 * queued scenario run notes in Redis which chains it writes (run ids, the worker's name and a fingerprint of its
 * evidence store: never a path, URL or secret). When BullMQ hands a stalled job to another worker, that worker looks
 * up the earlier attempts of the same scenario × repeat and, once their worker has stopped beating, closes their
 * chains with `run.interrupted` naming why, in the store it can reach: the same store (shared PostgreSQL, or one
 * SQLite file on this machine), or the dead worker's own seeded-campaign file when it sits on this machine.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { errorMessage } from '@aeh/harness/errors';
import type { connectRedis } from '@aeh/harness/queue/redis';
import type { QueuedJobAttempt } from '@aeh/harness/queue/worker';
import { sealInterruptedRuns } from '../evidence/interrupted.js';
import { openEvidenceStore, type SqlEvidenceStore } from '../evidence/store.js';

type RedisClient = Awaited<ReturnType<typeof connectRedis>>;

/** Redis hash of one queued campaign: field `<scenario>#<repeat>#<stalled>`, value an `AttemptNote` as JSON. */
export function attemptsKeyFor(campaignRunId: string): string {
  return `soclab:run:${campaignRunId}:attempts`;
}

/** The coordinator deletes the attempts hash when the campaign ends; this bounds it if the coordinator dies (s). */
const ATTEMPTS_TTL_S = 7 * 24 * 3600;
/** Same as the harness's heartbeat TTL: a worker silent for longer is taken for dead. */
const HEARTBEAT_TTL_S = 10;
/** How long a recovering worker waits for the earlier attempt's worker to go silent before leaving its chains. */
const GIVE_UP_MS = 120_000;

export interface AttemptNote {
  worker: string;
  /** sha256 of the evidence store's location (a redacted URL or a file path), to tell one store from another. */
  store: string;
  run_ids: string[];
}

/** A one-way fingerprint of a store's location: equal fingerprints, same store; Redis never sees the location. */
export function storeFingerprint(location: string): string {
  return createHash('sha256').update(`soclab-evidence-store\0${location}`).digest('hex').slice(0, 32);
}

const fieldOf = (job: Pick<QueuedJobAttempt, 'test_id' | 'repeat' | 'stalled'>): string =>
  `${job.test_id}#${job.repeat}#${job.stalled}`;

/** The file a worker named `worker` gives a seeded campaign's chains under `evidenceDir` (see prepareQueuedCampaign). */
export function seededEvidenceFile(evidenceDir: string, campaignRunId: string, worker: string): string {
  return resolve(evidenceDir, campaignRunId, `${worker.replace(/[^A-Za-z0-9_.-]/g, '_')}.sqlite`);
}

export interface AttemptLedgerOptions {
  redis: RedisClient;
  campaignRunId: string;
  worker: string;
  /** The store this worker writes the campaign's chains to. */
  store: SqlEvidenceStore;
  /** Where seeded campaigns keep per-worker files on this machine (to reach a dead neighbour's file). */
  evidenceDir: string;
  log: (message: string) => void;
}

/** Notes this worker's chains per attempt, and closes earlier attempts' chains when it recovers a stalled job. */
export class AttemptLedger {
  private readonly key: string;
  private readonly fingerprint: string;
  private readonly written = new Map<string, Set<string>>();
  private readonly sealing = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly options: AttemptLedgerOptions) {
    this.key = attemptsKeyFor(options.campaignRunId);
    this.fingerprint = storeFingerprint(options.store.location);
  }

  /**
   * Record that this attempt writes `chainId`, before its first event is written: a worker killed right after still
   * leaves a note saying which chain it opened.
   */
  async noteChain(job: QueuedJobAttempt, chainId: string): Promise<void> {
    const field = fieldOf(job);
    const ids = this.written.get(field) ?? new Set<string>();
    if (ids.has(chainId)) return;
    ids.add(chainId);
    this.written.set(field, ids);
    const note: AttemptNote = { worker: this.options.worker, store: this.fingerprint, run_ids: [...ids] };
    await this.options.redis
      .multi()
      .hset(this.key, field, JSON.stringify(note))
      .expire(this.key, ATTEMPTS_TTL_S)
      .exec();
  }

  /** The job is done here: forget what it wrote (the note stays in Redis for a later recovery). */
  forget(job: QueuedJobAttempt): void {
    this.written.delete(fieldOf(job));
  }

  /**
   * This job was recovered from a dead worker: close what the earlier attempts left open, in the background (the
   * scenario runs again at once; the close waits until the earlier worker has stopped beating, so a worker that
   * only missed a lock renewal and is still writing is never closed under).
   */
  recover(job: QueuedJobAttempt): void {
    if (job.stalled <= 0 || this.stopped) return;
    const task = this.closeEarlier(job)
      .catch((error: unknown) =>
        this.options.log(
          `cannot close the abandoned attempt of ${job.test_id} repeat ${job.repeat}: ${errorMessage(error)}`,
        ),
      )
      .finally(() => this.sealing.delete(task));
    this.sealing.add(task);
  }

  /**
   * Take no more recoveries; returns once closes under way have ended (a campaign that just finished has no
   * heartbeats left in Redis, so their waits end at once).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.sealing]);
  }

  private async closeEarlier(job: QueuedJobAttempt): Promise<void> {
    const { redis, log } = this.options;
    const earlier: { field: string; note: AttemptNote }[] = [];
    for (let stalled = 0; stalled < job.stalled; stalled += 1) {
      const field = fieldOf({ ...job, stalled });
      const text = await redis.hget(this.key, field);
      const note = parseNote(text);
      if (note && note.worker !== this.options.worker) earlier.push({ field, note });
    }
    for (const { note } of earlier) {
      if (!(await this.waitUntilSilent(note.worker))) {
        log(
          `the earlier attempt of ${job.test_id} repeat ${job.repeat} on ${note.worker} is still alive after ${GIVE_UP_MS / 1000} s; its chains are left to it`,
        );
        continue;
      }
      const reason = `the soclab worker ${note.worker} stopped mid-run (its job lock expired); scenario ${job.test_id} repeat ${job.repeat} ran again from the start on ${this.options.worker} (recovery ${job.stalled})`;
      const target = await this.storeOf(note);
      if (!target) {
        log(
          `the abandoned attempt of ${job.test_id} repeat ${job.repeat} on ${note.worker} wrote to an evidence store this worker cannot reach; its chain (${note.run_ids.join(', ')}) stays open there`,
        );
        continue;
      }
      try {
        const sealed = await sealInterruptedRuns(target.store, reason, new Set(note.run_ids));
        if (sealed.length > 0) {
          log(
            `closed ${sealed.length} chain(s) of the abandoned attempt of ${job.test_id} repeat ${job.repeat} on ${note.worker} with run.interrupted`,
          );
        }
      } finally {
        if (target.own) await target.store.close();
      }
    }
  }

  /** True once `worker` has not beaten for the heartbeat TTL (Redis time), false if it is still beating at the end. */
  private async waitUntilSilent(worker: string): Promise<boolean> {
    const { redis, campaignRunId } = this.options;
    const { workersKeyFor } = await import('@aeh/harness/queue/protocol');
    const until = Date.now() + GIVE_UP_MS;
    for (;;) {
      const [seconds] = await redis.time();
      const beat = await redis.zscore(workersKeyFor(campaignRunId), worker);
      if (beat === null || Number(seconds) - Number(beat) > HEARTBEAT_TTL_S) return true;
      if (Date.now() > until) return false;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  /** The store the earlier attempt wrote to, when this worker can open it. */
  private async storeOf(note: AttemptNote): Promise<{ store: SqlEvidenceStore; own: boolean } | null> {
    if (note.store === this.fingerprint) return { store: this.options.store, own: false };
    // A seeded campaign's per-worker file: reachable when the dead worker ran on this machine with this evidence dir.
    const host = note.worker.slice(0, note.worker.lastIndexOf(':'));
    if (host !== hostname()) return null;
    const file = seededEvidenceFile(this.options.evidenceDir, this.options.campaignRunId, note.worker);
    if (!existsSync(file) || storeFingerprint(file) !== note.store) return null;
    return { store: await openEvidenceStore(file), own: true };
  }
}

function parseNote(text: string | null): AttemptNote | null {
  if (!text) return null;
  try {
    const value = JSON.parse(text) as Partial<AttemptNote>;
    if (typeof value.worker !== 'string' || typeof value.store !== 'string' || !Array.isArray(value.run_ids)) {
      return null;
    }
    return { worker: value.worker, store: value.store, run_ids: value.run_ids.filter((id) => typeof id === 'string') };
  } catch {
    return null;
  }
}
