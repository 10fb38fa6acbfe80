// Copied by scripts/build-bundles.mjs into each CLI's dist/bundle/ as code-cache.js, beside the cli.cjs it loads;
// the bins import it from there. Its import() below resolves from that folder, as the bundle's own would.
import { isAscii } from 'node:buffer';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

/**
 * The CommonJS copy of the bundle, compiled with V8's code cache (Node 20 caches no ES module code). The cache sits
 * beside the bundle (trusted like the code it caches, never a shared temp folder) and is V8's own data: V8 rejects
 * it when the source length, V8 version or flags differ (then it is rewritten); the file name tells builds apart. Any failure to read or write it only
 * costs the compile.
 */
export function runWithCodeCache(file) {
  // An ASCII-only bundle (the harness build escapes the rest) is read as Latin-1: the same text, decoded in a third of
  // the time, and a one-byte string for V8 (half the memory of the two-byte string one non-ASCII character forces).
  const bytes = readFileSync(file);
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  // One cache per command: a cache holds the functions its first run compiled, and `--version` compiles few.
  const command = /^[a-z][a-z-]{0,40}$/.test(process.argv[2] ?? '') ? process.argv[2] : 'other';
  // V8 checks the source's length, not its text: the name carries the build (size and time) so that a rebuilt bundle
  // of the same length never meets an older build's cache.
  const { size, mtimeMs } = statSync(file);
  const prefix = `${command}-${process.version}-${process.arch}-`;
  const cacheDir = join(dirname(file), 'cache');
  const cacheFile = join(cacheDir, `${prefix}${size}-${Math.trunc(mtimeMs)}.v8`);
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {}
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const script = new Script(wrapped, { filename: file, cachedData });
  if (cachedData === undefined || script.cachedDataRejected) {
    // At exit the functions this run compiled are in the cache too.
    process.once('exit', () => {
      try {
        mkdirSync(cacheDir, { recursive: true });
        const temporary = `${cacheFile}.${process.pid}`;
        writeFileSync(temporary, script.createCachedData());
        renameSync(temporary, cacheFile);
        // Older builds' caches of this command.
        for (const name of readdirSync(cacheDir)) {
          if (name.startsWith(prefix) && name.endsWith('.v8') && join(cacheDir, name) !== cacheFile) {
            rmSync(join(cacheDir, name), { force: true });
          }
        }
      } catch {}
    });
  }
  globalThis[Symbol.for('aeh.import')] = (specifier) => import(specifier);
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
}
