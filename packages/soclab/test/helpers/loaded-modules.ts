import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './cli.js';

/**
 * Every module (ESM and CommonJS) a fresh Node process loads while running the ES module `code`, in order. `code`
 * may call `mark(name)`: a `MARK <name>` line then separates what was loaded before it from what came after (see
 * `loadedBefore`). `dir` holds the load hook and the log; the process runs with NODE_ENV=production plus `env`.
 */
export async function modulesLoadedBy(dir: string, code: string, env: Record<string, string> = {}): Promise<string[]> {
  const log = join(dir, `loaded-${Math.random().toString(36).slice(2)}.txt`);
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(${JSON.stringify(log)}, url + '\\n');
  return next(url, context);
}`,
  );
  const register = `import { register } from 'node:module'; register(${JSON.stringify(`file://${hooks}`)});`;
  const script = `import { createRequire } from 'node:module';
import { appendFileSync } from 'node:fs';
const required = () => Object.keys(createRequire(import.meta.url).cache).join('\\n');
const mark = (name) => appendFileSync(${JSON.stringify(log)}, required() + '\\nMARK ' + name + '\\n');
${code}
mark('end');`;
  await promisify(execFile)(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(register)}`, '--input-type=module', '-e', script],
    { cwd: REPO_ROOT, env: { ...process.env, NODE_ENV: 'production', ...env }, timeout: 60_000 },
  );
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

/** The modules loaded before the `mark(name)` line. */
export const loadedBefore = (loaded: string[], name: string): string[] =>
  loaded.slice(0, loaded.indexOf(`MARK ${name}`));
