import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Create a directory and its missing parents, like `mkdirSync(dir, { recursive: true })`, but fail instead of
 * hanging. Node 20's recursive mkdir loops forever when creating a child returns ENOENT although its parent exists,
 * which is what special file systems answer (`--out /proc/x`, `--db /sys/y.sqlite`): the command spun at full CPU
 * and never exited. Here each missing level is created once, from the deepest existing ancestor down, and the first
 * error is thrown with its code and path (ENOENT, EACCES, ENOTDIR, EROFS ...).
 */
export function makeDirectory(dir: string): void {
  const missing: string[] = [];
  let at = resolve(dir);
  for (;;) {
    const found = statSync(at, { throwIfNoEntry: false });
    if (found) {
      if (!found.isDirectory()) throw notADirectory(at);
      break;
    }
    missing.push(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const level of missing.reverse()) {
    try {
      mkdirSync(level);
    } catch (error) {
      // Another process may have created it meanwhile; anything else is the answer.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(level).isDirectory()) throw error;
    }
  }
}

function notADirectory(path: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`ENOTDIR: not a directory, mkdir '${path}'`);
  error.code = 'ENOTDIR';
  error.path = path;
  error.syscall = 'mkdir';
  return error;
}
