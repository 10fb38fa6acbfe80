import { z } from 'zod';

/** The longest delay setTimeout honours (a signed 32-bit count of milliseconds, about 24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The same, in seconds. */
export const MAX_TIMER_SECONDS = MAX_TIMER_MS / 1000;

/**
 * An adapter's timeout option in seconds. A longer value than a timer can hold used to fire after 1 ms (Node clamps
 * it, with a TimeoutOverflowWarning), so `timeout: 1e12` failed every request at once; it is now a validation error
 * naming the option.
 */
export function timeoutSeconds() {
  return z
    .number()
    .positive()
    .max(MAX_TIMER_SECONDS, `at most ${MAX_TIMER_SECONDS} seconds (about 24.8 days; longer cannot be timed)`);
}
