import { errorMessage } from '../core/errors.js';

export interface IndexAfterRunOptions {
  /** `--store` (else HARNESS_STORE_URL, else `<runsDir>/index.sqlite`). */
  store?: string | undefined;
  runsDir?: string | undefined;
}

/**
 * Index a finished run into the run store. Never fails the run: the run folder is the record, so an
 * unreachable store only warns (and says how to index it later).
 */
export async function indexAfterRun(runDir: string, options: IndexAfterRunOptions = {}): Promise<boolean> {
  try {
    const { openStore } = await import('./run-store.js');
    const store = await openStore({ store: options.store, runsDir: options.runsDir });
    try {
      await store.indexRun(runDir);
    } finally {
      await store.close();
    }
    return true;
  } catch (err) {
    const message = errorMessage(err);
    process.stderr.write(
      `harness: warning: the run was not added to the run index (${message}); retry with: harness index add ${runDir}\n`,
    );
    return false;
  }
}
