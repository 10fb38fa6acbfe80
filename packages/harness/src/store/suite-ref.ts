import { existsSync, statSync } from 'node:fs';
import type { RunStore } from './run-store.js';

/** A suite named on the command line: by name, or by its file (then its quarantine list is known too). */
export interface SuiteRef {
  name: string;
  quarantine?: string[];
}

/** Resolve `<suite>` arguments: an existing file is loaded as a suite; anything else is a suite name. */
export async function suiteNameOf(arg: string): Promise<SuiteRef> {
  if (!(existsSync(arg) && statSync(arg).isFile())) return { name: arg };
  // Loading validates the adapter and evaluator names, so the built-in plugins must be registered.
  const { loadBuiltins } = await import('../cli/common.js');
  await loadBuiltins();
  const { loadSuite } = await import('../benchmarks/loader.js');
  const suite = await loadSuite(arg);
  return suite.quarantine ? { name: suite.name, quarantine: [...suite.quarantine] } : { name: suite.name };
}

/** The quarantine list recorded in the suite's most recent run (`metadata.quarantine`). */
export async function quarantineOfLatest(store: RunStore, suite: string): Promise<string[]> {
  const latest = (await store.listRuns({ suite, limit: 1 })).items[0];
  if (!latest) return [];
  const run = await store.getRun(latest.id);
  const q = run.header.metadata?.quarantine;
  return Array.isArray(q) ? q.filter((x): x is string => typeof x === 'string') : [];
}
