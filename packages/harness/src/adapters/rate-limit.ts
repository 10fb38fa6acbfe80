import { z } from 'zod';
import type { AgentOutput } from '../core/agent.js';
import { errorMessage } from '../core/errors.js';
import type { Agent, RunContext } from './base.js';
import { errorOutput } from './normalize.js';
import { MAX_TIMER_SECONDS } from './timeouts.js';

/**
 * Per-adapter limits: a concurrency cap, a request rate, and adaptive back-off when the agent answers 429.
 * On a rate-limit reply the allowed concurrency is halved (never below 1) and new requests pause for the
 * Retry-After time (or an exponential pause when there is none); each success then raises the allowance
 * again additively (AIMD, as TCP congestion control and the promptfoo/Inspect schedulers do).
 * The limiter never retries: the runner's single retry layer does, and the limiter only shapes traffic.
 */

export const LimitOptionsShape = {
  /** At most this many calls to this agent at once (the runner's --concurrency still applies). */
  max_concurrency: z.number().int().positive().optional(),
  /**
   * Start at most this many calls per minute, evenly spaced. The spacing must fit a timer (about 24.8 days): a
   * smaller rate used to overflow it, and Node then fired every start after 1 ms.
   */
  requests_per_minute: z
    .number()
    .min(
      60 / MAX_TIMER_SECONDS,
      `at least ${(60 / MAX_TIMER_SECONDS).toExponential(2)} (one call per ~24.8 days; a timer holds no longer)`,
    )
    .optional(),
  /** Lower concurrency and pause after 429 replies. */
  adaptive: z.boolean().default(true),
};
export const LimitOptions = z.object(LimitOptionsShape);
export type LimitOptions = z.infer<typeof LimitOptions>;

export interface RateLimiterOptions {
  maxConcurrency?: number;
  requestsPerMinute?: number;
  adaptive?: boolean;
  /** Cap for the exponential pause used when a 429 has no Retry-After (seconds). */
  maxPause?: number;
  now?: () => number;
}

interface Waiter {
  resolve(ok: boolean): void;
  signal: AbortSignal;
  onAbort: () => void;
}

/** True for replies that say "slow down" (HTTP 429 or an adapter-flagged rate limit). */
export function isRateLimited(out: AgentOutput): boolean {
  return out.transient === true && (out.metadata.rate_limited === true || out.metadata.http_status === 429);
}

export class RateLimiter {
  readonly #max: number;
  readonly #interval: number;
  readonly #adaptive: boolean;
  readonly #maxPause: number;
  readonly #now: () => number;
  #limit: number;
  #inflight = 0;
  #queue: Waiter[] = [];
  #nextStart = 0;
  #pausedUntil = 0;
  #consecutive429 = 0;
  #timer: NodeJS.Timeout | null = null;
  #timerAt = 0;

  constructor(options: RateLimiterOptions = {}) {
    this.#max = options.maxConcurrency ?? Number.POSITIVE_INFINITY;
    this.#interval = options.requestsPerMinute ? 60_000 / options.requestsPerMinute : 0;
    this.#adaptive = options.adaptive ?? true;
    this.#maxPause = (options.maxPause ?? 30) * 1000;
    this.#now = options.now ?? Date.now;
    this.#limit = this.#max;
  }

  /** Current concurrency allowance (lowered by 429s, restored by successes). */
  get limit(): number {
    return this.#limit;
  }

  get inflight(): number {
    return this.#inflight;
  }

  get queued(): number {
    return this.#queue.length;
  }

  /** Wait for a slot; resolves false when the signal aborts first (the caller must not call release then). */
  acquire(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    if (this.#queue.length === 0 && this.#canStart(this.#now())) {
      this.#start(this.#now());
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        resolve,
        signal,
        onAbort: () => {
          const i = this.#queue.indexOf(waiter);
          if (i >= 0) this.#queue.splice(i, 1);
          resolve(false);
        },
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
      this.#queue.push(waiter);
      this.#pump();
    });
  }

  /** Give the slot back and let the limiter learn from the reply. */
  release(out: AgentOutput | null): void {
    this.#inflight = Math.max(0, this.#inflight - 1);
    if (out && this.#adaptive) this.#learn(out);
    this.#pump();
  }

  #learn(out: AgentOutput): void {
    if (isRateLimited(out)) {
      this.#consecutive429++;
      // Multiplicative decrease from what was actually in flight, so an unbounded allowance shrinks too.
      const base = Number.isFinite(this.#limit) ? this.#limit : this.#inflight + 1;
      this.#limit = Math.max(1, Math.floor(Math.min(base, this.#inflight + 1) / 2));
      const pause =
        out.retry_after !== undefined
          ? out.retry_after * 1000
          : Math.min(this.#maxPause, 250 * 2 ** (this.#consecutive429 - 1));
      this.#pausedUntil = Math.max(this.#pausedUntil, this.#now() + pause);
      return;
    }
    if (out.error === null || out.error === undefined) {
      this.#consecutive429 = 0;
      if (this.#limit < this.#max) this.#limit = Math.min(this.#max, this.#limit + 1 / Math.max(1, this.#limit));
    }
  }

  #canStart(now: number): boolean {
    return this.#inflight < Math.floor(this.#limit) && now >= this.#pausedUntil && now >= this.#nextStart;
  }

  #start(now: number): void {
    this.#inflight++;
    if (this.#interval > 0) this.#nextStart = Math.max(now, this.#nextStart) + this.#interval;
  }

  #pump(): void {
    let now = this.#now();
    while (this.#queue.length > 0 && this.#canStart(now)) {
      const w = this.#queue.shift() as Waiter;
      w.signal.removeEventListener('abort', w.onAbort);
      this.#start(now);
      w.resolve(true);
      now = this.#now();
    }
    if (this.#queue.length === 0 || this.#inflight >= Math.floor(this.#limit)) return;
    // Blocked by time (pause or rate spacing): wake up when the earliest gate opens.
    const at = Math.max(this.#pausedUntil, this.#nextStart);
    if (this.#timer && this.#timerAt <= at) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(
      () => {
        this.#timer = null;
        this.#pump();
      },
      Math.max(0, at - now),
    );
  }
}

/** Wrap an agent so its calls go through a RateLimiter; returns the agent unchanged when nothing is limited. */
export function withRateLimit(agent: Agent, options: Partial<LimitOptions>): Agent {
  if (!options.max_concurrency && !options.requests_per_minute && options.adaptive === false) return agent;
  const limiter = new RateLimiter({
    maxConcurrency: options.max_concurrency,
    requestsPerMinute: options.requests_per_minute,
    adaptive: options.adaptive ?? true,
  });
  const limited: Agent = {
    async run(input, context: RunContext) {
      const ok = await limiter.acquire(context.signal);
      if (!ok) return errorOutput('aborted while waiting for a rate-limit slot');
      let out: AgentOutput | null = null;
      try {
        out = await agent.run(input, context);
        return out;
      } catch (err) {
        out = errorOutput(`agent failed: ${errorMessage(err)}`);
        return out;
      } finally {
        limiter.release(out);
      }
    },
  };
  if (agent.close) limited.close = () => (agent.close as () => Promise<void>)();
  if (agent.describe) limited.describe = () => (agent.describe as NonNullable<Agent['describe']>)();
  return limited;
}
