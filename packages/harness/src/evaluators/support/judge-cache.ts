import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { makeDirectory } from '../../core/directories.js';
import { sha256, sortedKeysJson } from '../../core/hash.js';
import { firstZodIssue } from '../../core/zod-issues.js';
import type { RetryPolicy } from '../../runner/retry.js';

/** File name of a run's judge cache (in the run folder, and in a `--record` cassette folder). */
export const JUDGE_CACHE_FILE = 'judge-cache.jsonl';

/** One recorded judge reply: what the provider answered, so the same request can be answered again offline. */
export const JudgeCacheEntry = z.object({
  type: z.literal('judge_reply'),
  key: z.string().regex(/^[0-9a-f]{64}$/),
  provider: z.string(),
  model: z.string(),
  finish_reason: z.string(),
  output_text: z.string(),
  structured: z.record(z.string(), z.unknown()).nullable(),
  tool_call: z
    .object({ name: z.string(), arguments: z.record(z.string(), z.unknown()) })
    .nullable()
    .default(null),
  usage: z.object({ input_tokens: z.number(), output_tokens: z.number(), estimated: z.boolean() }),
  cost: z.number().nullable(),
  cost_is_estimated: z.boolean(),
  latency_ms: z.number(),
});
export type JudgeCacheEntry = z.infer<typeof JudgeCacheEntry>;

/** The cache key of a judge request: provider, model, the whole request (prompt and options) and the call mode. */
export function judgeCacheKey(parts: { provider: string; model: string; mode: string; request: unknown }): string {
  return sha256(sortedKeysJson(parts));
}

/** Thrown when a judge cache file cannot be read (a usage problem, before any case runs). */
export class JudgeCacheError extends Error {
  readonly code = 'AEH_ERR_JUDGE_CACHE';
  override name = 'JudgeCacheError';
}

/**
 * The judge replies of a run: looked up before a call, appended after one. Entries loaded from a recorded run
 * (`--replay`) answer identical requests with zero calls, which is what makes a replay reproduce judge scores.
 * New entries go to every attached file with one synchronous append, so a killed run keeps what it paid for.
 */
export class JudgeSession {
  readonly #entries = new Map<string, JudgeCacheEntry>();
  readonly #files: string[] = [];
  /** Files the entries were loaded from: attaching one of them again must not duplicate its lines. */
  readonly #loaded = new Set<string>();
  readonly #scrub: (text: string) => string;
  /** Backoff between judge call attempts (tests shorten it); the runner's defaults otherwise. */
  readonly retry: Partial<Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs' | 'maxRetryAfterMs'>> | undefined;
  /** Seconds a judge call may take when its evaluator sets no `timeout` (the run's `--timeout`). */
  callTimeoutSeconds: number | undefined;
  /** Counts for the run summary: calls made, replies answered from the cache. */
  calls = 0;
  hits = 0;

  constructor(
    options: {
      scrub?: (text: string) => string;
      retry?: Partial<Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs' | 'maxRetryAfterMs'>>;
      callTimeoutSeconds?: number;
    } = {},
  ) {
    this.#scrub = options.scrub ?? ((t) => t);
    this.retry = options.retry;
    this.callTimeoutSeconds = options.callTimeoutSeconds;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Load the entries of a recorded run: a folder holding judge-cache.jsonl, or the file itself. */
  load(pathOrDir: string): number {
    const abs = resolve(pathOrDir);
    const path = abs.endsWith('.jsonl') ? abs : join(abs, JUDGE_CACHE_FILE);
    if (!existsSync(path)) return 0;
    const lines = readFileSync(path, 'utf8').split('\n');
    let n = 0;
    for (const [i, text] of lines.entries()) {
      const line = text.trim();
      if (!line) continue;
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch {
        // A killed writer can leave a truncated last line; anything else is a damaged file.
        if (lines.slice(i + 1).every((l) => l.trim() === '')) break;
        throw new JudgeCacheError(`${path}:${i + 1}: not valid JSON`);
      }
      const parsed = JudgeCacheEntry.safeParse(raw);
      if (!parsed.success) {
        throw new JudgeCacheError(`${path}:${i + 1}: ${firstZodIssue(parsed.error)}`);
      }
      this.#entries.set(parsed.data.key, parsed.data);
      n++;
    }
    this.#loaded.add(path);
    return n;
  }

  /** Also append new entries to `dir/judge-cache.jsonl` (the run folder; a --record folder). */
  persistTo(dir: string): void {
    const path = join(resolve(dir), JUDGE_CACHE_FILE);
    if (this.#files.includes(path)) return;
    makeDirectory(dirname(path));
    // Entries known before the folder was attached (loaded for a replay) are copied, so the run is complete.
    if (!this.#loaded.has(path)) {
      for (const e of this.#entries.values()) appendFileSync(path, `${this.#scrub(JSON.stringify(e))}\n`);
    }
    this.#files.push(path);
  }

  readonly #pending = new Map<string, Promise<unknown>>();

  /** A call for `key` that is under way, if any. */
  pending(key: string): Promise<unknown> | undefined {
    return this.#pending.get(key);
  }

  /** Note a call for `key` under way until it settles, so identical concurrent requests wait for it. */
  track(key: string, call: Promise<unknown>): void {
    const settled = call.then(
      () => undefined,
      () => undefined,
    );
    this.#pending.set(key, settled);
    void settled.then(() => {
      if (this.#pending.get(key) === settled) this.#pending.delete(key);
    });
  }

  get(key: string): JudgeCacheEntry | undefined {
    return this.#entries.get(key);
  }

  put(entry: JudgeCacheEntry): void {
    if (this.#entries.has(entry.key)) return;
    this.#entries.set(entry.key, entry);
    const line = `${this.#scrub(JSON.stringify(entry))}\n`;
    for (const f of this.#files) appendFileSync(f, line);
  }
}
