import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type EvidenceStore, openEvidenceStore } from '../../src/evidence/store.js';

export interface ScratchEvidence {
  /** A temporary folder, removed after the file's tests. */
  readonly dir: string;
  /** An evidence store (in memory, or a SQLite file in `dir`), open from the file's first `beforeAll` to its last `afterAll`. */
  evidence: EvidenceStore;
}

/**
 * A temporary folder and an evidence store for one test file (call at module level, before the file's own
 * `beforeAll` hooks that use them): in memory, or with `{ file: true }` a SQLite file in the folder, as a campaign
 * writes it. Both are cleaned up after the file's tests.
 */
export function scratchEvidence(prefix: string, options: { file?: boolean } = {}): ScratchEvidence {
  const scratch = { dir: mkdtempSync(join(tmpdir(), prefix)) } as ScratchEvidence;
  beforeAll(async () => {
    scratch.evidence = await openEvidenceStore(options.file ? join(scratch.dir, 'evidence.sqlite') : ':memory:');
  });
  afterAll(async () => {
    await scratch.evidence?.close();
    rmSync(scratch.dir, { recursive: true, force: true });
  });
  return scratch;
}

/** Put an environment variable back as it was (or unset) after the file's tests, which may set it. */
export function restoreEnvAfterAll(name: string): void {
  const saved = process.env[name];
  afterAll(() => {
    if (saved === undefined) delete process.env[name];
    else process.env[name] = saved;
  });
}
