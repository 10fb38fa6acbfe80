import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type EvidenceStore, openEvidenceStore } from '../../src/evidence/store.js';

export interface ScratchEvidence {
  /** A temporary folder, removed after the file's tests. */
  readonly dir: string;
  /** An in-memory evidence store, open from the file's first `beforeAll` to its last `afterAll`. */
  evidence: EvidenceStore;
}

/**
 * A temporary folder and an in-memory evidence store for one test file (call at module level, before the file's
 * own `beforeAll` hooks that use them). Both are cleaned up after the file's tests.
 */
export function scratchEvidence(prefix: string): ScratchEvidence {
  const scratch = { dir: mkdtempSync(join(tmpdir(), prefix)) } as ScratchEvidence;
  beforeAll(async () => {
    scratch.evidence = await openEvidenceStore(':memory:');
  });
  afterAll(async () => {
    await scratch.evidence?.close();
    rmSync(scratch.dir, { recursive: true, force: true });
  });
  return scratch;
}
