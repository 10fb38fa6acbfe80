import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { makeDirectory } from '../../core/directories.js';

const FLUSH_AT = 64 * 1024;

/**
 * Where a reporter writes: always an in-memory copy (reporters return their text), plus, with a destination,
 * a file written in 64 KiB chunks with backpressure. The file is written next to the destination and renamed
 * at the end, so a reader never sees half a report.
 */
export class ReportSink {
  readonly #parts: string[] = [];
  #pending = '';
  readonly #stream: WriteStream | null;
  readonly #tmp: string | null;
  readonly #destination: string | null;
  #error: Error | null = null;

  private constructor(destination: string | null, stream: WriteStream | null, tmp: string | null) {
    this.#destination = destination;
    this.#stream = stream;
    this.#tmp = tmp;
    stream?.on('error', (err) => {
      this.#error = err;
    });
  }

  /** Open a sink; creates the destination's parent folders. */
  static async open(destination?: string): Promise<ReportSink> {
    if (!destination) return new ReportSink(null, null, null);
    const target = resolve(destination);
    makeDirectory(dirname(target));
    const tmp = join(dirname(target), `.${basename(target)}.${process.pid}.tmp`);
    const stream = createWriteStream(tmp, { encoding: 'utf8' });
    await once(stream, 'open');
    return new ReportSink(target, stream, tmp);
  }

  /** Append text; resolves once the file stream can take more. */
  async write(chunk: string): Promise<void> {
    if (this.#error) throw this.#error;
    this.#parts.push(chunk);
    if (!this.#stream) return;
    this.#pending += chunk;
    if (this.#pending.length >= FLUSH_AT) await this.#flush();
  }

  async #flush(): Promise<void> {
    if (!this.#stream || this.#pending === '') return;
    const data = this.#pending;
    this.#pending = '';
    if (!this.#stream.write(data)) await once(this.#stream, 'drain');
    if (this.#error) throw this.#error;
  }

  /** Finish the file (if any) and return the whole report. */
  async close(): Promise<string> {
    if (this.#stream && this.#tmp && this.#destination) {
      try {
        await this.#flush();
        this.#stream.end();
        await once(this.#stream, 'finish');
        if (this.#error) throw this.#error;
        await rename(this.#tmp, this.#destination);
      } catch (err) {
        this.#stream.destroy();
        await rm(this.#tmp, { force: true });
        throw err;
      }
    }
    return this.#parts.join('');
  }

  /** Drop a half-written file after a failure. */
  async abort(): Promise<void> {
    if (this.#stream && this.#tmp) {
      this.#stream.destroy();
      await rm(this.#tmp, { force: true });
    }
  }
}

/** Run `render` against a sink, cleaning up the temporary file if it throws. */
export async function renderTo(destination: string | undefined, render: (sink: ReportSink) => Promise<void>) {
  const sink = await ReportSink.open(destination);
  try {
    await render(sink);
  } catch (err) {
    await sink.abort();
    throw err;
  }
  return sink.close();
}
