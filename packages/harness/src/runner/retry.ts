// The wait between attempts (cut short by an abort) is part of the retry API that @aeh/harness/retry offers.
export { sleep } from '../core/sleep.js';
/** How the runner retries outputs an adapter marks `transient` (connection refused/reset, 429, 5xx). */
export interface RetryPolicy {
  /** Attempts per case including the first (1 disables retries). */
  maxAttempts: number;
  /** First backoff delay, doubled each retry. */
  baseDelayMs: number;
  /** Cap on one computed backoff delay. */
  maxDelayMs: number;
  /** Cap on a server-requested Retry-After wait. */
  maxRetryAfterMs: number;
  /** Retries allowed across the whole run; once spent, transient errors are recorded as they are. */
  budget: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
  budget: 100,
};

/**
 * Delay before retry number `retry` (1-based): exponential backoff with "equal jitter" (half fixed, half
 * random), never shorter than what the server asked for with Retry-After.
 */
export function backoffDelay(
  policy: RetryPolicy,
  retry: number,
  retryAfterSeconds?: number,
  random: () => number = Math.random,
): number {
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  const jittered = exp / 2 + random() * (exp / 2);
  const asked = retryAfterSeconds !== undefined ? Math.min(policy.maxRetryAfterMs, retryAfterSeconds * 1000) : 0;
  return Math.max(jittered, asked);
}

/** A shared, decrementing count of retries left for a run. */
export class RetryBudget {
  #left: number;
  #used = 0;
  constructor(total: number) {
    this.#left = Math.max(0, total);
  }
  /** Take one retry from the budget; false when it is spent. */
  take(): boolean {
    if (this.#left <= 0) return false;
    this.#left--;
    this.#used++;
    return true;
  }
  get used(): number {
    return this.#used;
  }
  get left(): number {
    return this.#left;
  }
}
