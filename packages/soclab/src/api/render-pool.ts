/** Limits of a render pool: how many tasks run at once, how many may wait, how many one caller may hold. */
export interface RenderPoolOptions {
  concurrency: number;
  maxWaiting: number;
  perKey: number;
}

/** The pool refused a task: every slot is taken, the waiting line is full, or the caller holds its share. */
export class RenderPoolFullError extends Error {
  override name = 'RenderPoolFullError';
  constructor(readonly reason: 'per_key' | 'waiting') {
    super(
      reason === 'per_key'
        ? 'you already have a PDF rendering or waiting; wait for it before asking for another'
        : 'every PDF renderer is busy and the waiting line is full',
    );
  }
}

/**
 * A bounded pool for expensive renders (each PDF launches Chromium): at most `concurrency` run, at most
 * `maxWaiting` wait, and one caller (`key`, the token's rate-limit key) holds at most `perKey` of the running and
 * waiting tasks, so a single viewer cannot keep the renderer busy for everyone. Refusals throw at once.
 *
 * @example
 *   const pool = new RenderPool({ concurrency: 1, maxWaiting: 4, perKey: 1 });
 *   const pdf = await pool.run(principal.key, () => renderPdf(scorecard));
 */
export class RenderPool {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly held = new Map<string, number>();

  constructor(private readonly options: RenderPoolOptions) {}

  /** Tasks running and waiting now. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const mine = this.held.get(key) ?? 0;
    if (mine >= this.options.perKey) throw new RenderPoolFullError('per_key');
    const mustWait = this.running >= this.options.concurrency;
    if (mustWait && this.waiting.length >= this.options.maxWaiting) throw new RenderPoolFullError('waiting');
    this.held.set(key, mine + 1);
    try {
      if (mustWait) await new Promise<void>((resolve) => this.waiting.push(resolve));
      else this.running += 1;
      try {
        return await task();
      } finally {
        // Hand the slot straight to the next waiter (running stays the same), else free it.
        const next = this.waiting.shift();
        if (next) next();
        else this.running -= 1;
      }
    } finally {
      const left = (this.held.get(key) ?? 1) - 1;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
    }
  }
}
