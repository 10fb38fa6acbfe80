import { existsSync, statSync } from 'node:fs';

/** A suite named on the command line: by name, or by its file (then its quarantine list is known too). */
export interface SuiteRef {
  name: string;
  quarantine?: string[];
}

/** Resolve `<suite>` arguments: an existing file is loaded as a suite; anything else is a suite name. */
export async function suiteNameOf(arg: string): Promise<SuiteRef> {
  if (!(existsSync(arg) && statSync(arg).isFile())) return { name: arg };
  // Loading validates the adapter and evaluator names, so the built-in plugins must be registered.
  const { loadBuiltins } = await import('./common.js');
  await loadBuiltins();
  const { loadSuite } = await import('../suites/loader.js');
  const suite = await loadSuite(arg);
  return suite.quarantine ? { name: suite.name, quarantine: [...suite.quarantine] } : { name: suite.name };
}
