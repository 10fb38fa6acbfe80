/** Measures wall-clock latency of one call in milliseconds (monotonic clock). */
export class Timer {
  readonly #start = performance.now();
  #end: number | null = null;

  /** Stops the timer (idempotent) and returns the elapsed milliseconds. */
  stop(): number {
    this.#end ??= performance.now();
    return this.elapsedMs;
  }

  get elapsedMs(): number {
    const end = this.#end ?? performance.now();
    return Math.max(0, Math.round((end - this.#start) * 1000) / 1000);
  }
}

/** Runs `fn` and returns its result with the elapsed milliseconds. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; latencyMs: number }> {
  const timer = new Timer();
  const value = await fn();
  return { value, latencyMs: timer.stop() };
}
