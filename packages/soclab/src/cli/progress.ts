import { formatSeconds } from '@aeh/harness/durations';

/**
 * Progress of the configurations of a soclab campaign, demo or compare on stderr: a bar with counts and an ETA
 * redrawn in place on a terminal; when piped (or in CI), plain lines at the start, every 25% or 10 s at most,
 * and at the end, so a log shows the run is alive without a wall of carriage returns.
 */
export interface ProgressSink {
  write(text: string): void;
}

export interface ProgressOptions {
  /** A terminal: redraw one line in place. */
  tty: boolean;
  /** Print nothing. */
  quiet?: boolean;
  now?: () => number;
  /** Seconds between plain lines at most (default 10). */
  every?: number;
  width?: number;
}

export class StudyProgress {
  #label = '';
  #total = 0;
  #started = 0;
  #lastLine = 0;
  #lastQuarter = 0;
  readonly #now: () => number;

  constructor(
    private readonly sink: ProgressSink,
    private readonly options: ProgressOptions,
  ) {
    this.#now = options.now ?? Date.now;
  }

  start(label: string, total: number): void {
    this.#label = label;
    this.#total = total;
    this.#started = this.#now();
    this.#lastLine = this.#started;
    this.#lastQuarter = 0;
    if (this.options.quiet) return;
    if (this.options.tty) this.sink.write(`\r${this.#bar(0, 0)}`);
    else this.sink.write(`${label}: 0/${total} runs\n`);
  }

  update(done: number, errors: number): void {
    if (this.options.quiet || this.#total === 0) return;
    if (this.options.tty) {
      this.sink.write(`\r${this.#bar(done, errors)}`);
      return;
    }
    const now = this.#now();
    const quarter = Math.floor((done / this.#total) * 4);
    const due = now - this.#lastLine >= (this.options.every ?? 10) * 1000;
    if (done < this.#total && (quarter > this.#lastQuarter || due)) {
      this.#lastQuarter = Math.max(this.#lastQuarter, quarter);
      this.#lastLine = now;
      this.sink.write(`${this.#text(done, errors)}\n`);
    }
  }

  end(done: number, errors: number): void {
    if (this.options.quiet) return;
    const took = formatSeconds((this.#now() - this.#started) / 1000);
    const err = errors > 0 ? `, ${errors} error${errors === 1 ? '' : 's'}` : '';
    if (this.options.tty) this.sink.write(`\r${this.#bar(done, errors)}\n`);
    else this.sink.write(`${this.#label}: ${done}/${this.#total} runs${err} in ${took}\n`);
  }

  #eta(done: number): string {
    if (done === 0) return 'ETA –';
    const elapsed = (this.#now() - this.#started) / 1000;
    return `ETA ${formatSeconds((elapsed / done) * (this.#total - done))}`;
  }

  #text(done: number, errors: number): string {
    const pct = Math.round((done / Math.max(1, this.#total)) * 100);
    const err = errors > 0 ? `, ${errors} error${errors === 1 ? '' : 's'}` : '';
    return `${this.#label}: ${done}/${this.#total} runs (${pct}%)${err}, ${this.#eta(done)}`;
  }

  #bar(done: number, errors: number): string {
    const width = this.options.width ?? 24;
    const filled = Math.round((done / Math.max(1, this.#total)) * width);
    const err = errors > 0 ? ` ${errors} errors` : '';
    const eta =
      done >= this.#total ? `done in ${formatSeconds((this.#now() - this.#started) / 1000)}` : this.#eta(done);
    return `${this.#label.padEnd(10)} ${'█'.repeat(filled)}${'░'.repeat(width - filled)} ${done}/${this.#total}${err} ${eta}`;
  }
}
