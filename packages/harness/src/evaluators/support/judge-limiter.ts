import { itemAt } from '../../core/item-at.js';
import { sleep } from '../../core/sleep.js';

/** Limits for one judge model: calls in flight at once, and calls started per minute. */
export interface JudgeLimits {
  maxConcurrency: number;
  /** Calls started per rolling minute; undefined means no rate limit. */
  requestsPerMinute?: number;
}

/**
 * Per-model gate for judge calls, shared by every evaluator of the process that calls the same provider/model,
 * because the vendor's limits are per key and model, not per evaluator. When two evaluators configure the same
 * model differently the stricter limit wins.
 */
export class JudgeLimiter {
  #limits: JudgeLimits;
  #active = 0;
  readonly #waiting: (() => void)[] = [];
  /** Start times (ms) of calls in the last minute, oldest first. */
  readonly #starts: number[] = [];

  constructor(limits: JudgeLimits) {
    this.#limits = { ...limits };
  }

  get limits(): JudgeLimits {
    return { ...this.#limits };
  }

  /** Tighten the limits (never loosen: another evaluator asked for less). */
  tighten(limits: JudgeLimits): void {
    this.#limits.maxConcurrency = Math.min(this.#limits.maxConcurrency, limits.maxConcurrency);
    if (limits.requestsPerMinute !== undefined) {
      this.#limits.requestsPerMinute = Math.min(
        this.#limits.requestsPerMinute ?? Number.POSITIVE_INFINITY,
        limits.requestsPerMinute,
      );
    }
  }

  /** Calls in flight right now (for tests and progress). */
  get active(): number {
    return this.#active;
  }

  /** Run `fn` once a slot is free and the rate allows; the slot is released when it settles. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(signal);
    try {
      await this.#pace(signal);
      return await fn();
    } finally {
      this.#release();
    }
  }

  #acquire(signal?: AbortSignal): Promise<void> {
    if (this.#active < this.#limits.maxConcurrency) {
      this.#active++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        this.#active++;
        resolve();
      };
      const onAbort = () => {
        const i = this.#waiting.indexOf(grant);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(signal?.reason ?? new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(grant);
    });
  }

  #release(): void {
    this.#active--;
    const next = this.#waiting.shift();
    if (next) next();
  }

  /** Wait until starting one more call keeps the last minute within requestsPerMinute. */
  async #pace(signal?: AbortSignal): Promise<void> {
    const rpm = this.#limits.requestsPerMinute;
    if (rpm === undefined) return;
    for (;;) {
      const now = Date.now();
      for (let oldest = this.#starts[0]; oldest !== undefined && now - oldest >= 60_000; oldest = this.#starts[0]) {
        this.#starts.shift();
      }
      if (this.#starts.length < rpm) {
        this.#starts.push(now);
        return;
      }
      // At the limit, so at least one start is on record: wait until the oldest leaves the minute.
      await sleep(60_000 - (now - itemAt(this.#starts, 0)) + 1, signal);
      if (signal?.aborted) throw signal.reason ?? new Error('aborted');
    }
  }
}

const limiters = new Map<string, JudgeLimiter>();

/** The process-wide limiter of one provider/model. */
export function judgeLimiter(key: string, limits: JudgeLimits): JudgeLimiter {
  let limiter = limiters.get(key);
  if (!limiter) {
    limiter = new JudgeLimiter(limits);
    limiters.set(key, limiter);
  } else limiter.tighten(limits);
  return limiter;
}

/** Forget every limiter (tests that reuse a model id with other limits). */
export function resetJudgeLimiters(): void {
  limiters.clear();
}
