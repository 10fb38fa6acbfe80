/**
 * The reproducible mode's clock and id source (`soclab campaign --seed N`, with `SOURCE_DATE_EPOCH`).
 *
 * A seeded campaign runs each scenario run inside a scope named by the seed, the campaign label, the scenario and
 * the repeat. Inside a scope, every id the lab mints (run, event, proposal, grant, approval ids), every timestamp it
 * records and every grant key and nonce come from that scope, in call order, instead of the system clock and random
 * source: two campaigns with the same seed give the same ids, times, chain hashes and so the same scorecard bytes,
 * whatever the machine, the output folder or how runs interleave. Outside a scope nothing changes.
 *
 * Security: a seeded campaign's grant keys and nonces are derived from the seed. They are not secrets from anyone
 * who knows the seed (and the seed is printed in the scorecard); the mode is for reproducing a measurement, never
 * for running an agent against anything real. Unseeded campaigns keep the random keys and nonces.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { itemAt } from '@aeh/harness/item-at';

interface Scope {
  readonly seed: number;
  readonly name: string;
  readonly epochMs: number;
  /** Readings so far per stream (`id:<stream>`, `clock:<stream>`, `bytes`). */
  readonly counters: Map<string, number>;
}

/**
 * Writers that run beside the main flow of a scenario run (the evidence store appends model turns while the
 * investigation goes on) read their own stream, so how their I/O interleaves with the run cannot shift its ids.
 */
export type ReproducibleStream = 'main' | 'evidence' | 'checkpoint';

function next(scope: Scope, counter: string): number {
  const n = scope.counters.get(counter) ?? 0;
  scope.counters.set(counter, n + 1);
  return n;
}

const current = new AsyncLocalStorage<Scope>();

/** Milliseconds the scoped clock advances per reading: readings are distinct and ordered, like a real clock. */
const TICK_MS = 1;

/**
 * Run `fn` with ids, times and key bytes derived from `seed` and `name` (readings start at `epochMs`). Nested
 * scopes replace the outer one; each scope counts its own readings, so concurrent scopes do not disturb each other.
 */
export function withReproducibleScope<T>(seed: number, name: string, epochMs: number, fn: () => T): T {
  return current.run({ seed, name, epochMs, counters: new Map() }, fn);
}

/** The active scope's seed and name, or null outside the reproducible mode. */
export function reproducibleScope(): { seed: number; name: string } | null {
  const scope = current.getStore();
  return scope ? { seed: scope.seed, name: scope.name } : null;
}

function digest(scope: Scope, kind: string, n: number): Buffer {
  return createHash('sha256').update(`soclab-seeded\0${scope.seed}\0${scope.name}\0${kind}\0${n}`).digest();
}

/** The next id of the active scope as an RFC 4122 version-4-shaped UUID, or null outside the reproducible mode. */
export function seededUuid(stream: ReproducibleStream = 'main'): string | null {
  const scope = current.getStore();
  if (!scope) return null;
  const b = digest(scope, `id:${stream}`, next(scope, `id:${stream}`)).subarray(0, 16);
  b[6] = (itemAt(b, 6) & 0x0f) | 0x40;
  b[8] = (itemAt(b, 8) & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** `n` bytes derived from the seed (grant keys, nonces), or null outside the reproducible mode. */
export function seededBytes(n: number): Buffer | null {
  const scope = current.getStore();
  if (!scope) return null;
  const chunks: Buffer[] = [];
  let have = 0;
  while (have < n) {
    const chunk = digest(scope, 'bytes', next(scope, 'bytes'));
    chunks.push(chunk);
    have += chunk.length;
  }
  return Buffer.concat(chunks).subarray(0, n);
}

/** The scoped clock's next reading (it advances one tick per reading), or null outside the reproducible mode. */
export function seededNow(stream: ReproducibleStream = 'main'): Date | null {
  const scope = current.getStore();
  if (!scope) return null;
  return new Date(scope.epochMs + TICK_MS * next(scope, `clock:${stream}`));
}

/** Now: the scoped clock in the reproducible mode, else the system clock. */
export const reproducibleNow = (): Date => seededNow() ?? new Date();
