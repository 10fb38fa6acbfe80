import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const TS_FILE = /\.(ts|mts|cts|tsx)$/i;

let tsxRegistered = false;
let bundleHookRegistered = false;

/**
 * Set by the bundled CLIs (scripts/build-bundles.mjs): '@aeh/harness' (and the other workspace packages the bundle
 * contains) -> URL of the bundle's own entry for it, which shares the CLI's chunks.
 */
const BUNDLE_ENTRIES = Symbol.for('aeh.bundle.entries');

/**
 * Resolve hook for plugins loaded by a bundled CLI. Without it, `import '@aeh/harness'` in a plugin loads the
 * package's unbundled modules: a second copy whose registries, AsyncLocalStorage and classes the CLI never sees.
 */
const BUNDLE_RESOLVE_HOOK = `let entries = {};
export function initialize(data) { entries = data; }
export function resolve(specifier, context, next) {
  const url = entries[specifier];
  return url ? { url, format: 'module', shortCircuit: true } : next(specifier, context);
}`;

async function shareBundledPackages(): Promise<void> {
  const entries = (globalThis as Record<symbol, unknown>)[BUNDLE_ENTRIES] as Record<string, string> | undefined;
  if (!entries || bundleHookRegistered) return;
  bundleHookRegistered = true;
  const { register } = await import('node:module');
  register(`data:text/javascript,${encodeURIComponent(BUNDLE_RESOLVE_HOOK)}`, { data: entries });
}

/**
 * Import a TypeScript file. When this module itself runs as TypeScript (under tsx or vitest) the host
 * already understands TS and a plain import is used; from the compiled CLI, tsx's loader is registered
 * once for the process first. A global registration (rather than an isolated `tsImport` namespace)
 * matters: a plugin that imports the harness must get the same module instances, and so the same
 * registries, as the CLI that loads it.
 */
async function importTypeScript(url: string): Promise<Record<string, unknown>> {
  const hostRunsTs = import.meta.url.endsWith('.ts');
  if (!hostRunsTs && !tsxRegistered) {
    const { register } = await import('tsx/esm/api');
    register();
    // A .ts file in a project whose package.json has no "type": "module" loads as CommonJS, which the ESM
    // hook alone does not transform ("Unexpected identifier" on the first type annotation).
    const cjs = await import('tsx/cjs/api');
    cjs.register();
    tsxRegistered = true;
  }
  const mod = (await import(url)) as Record<string, unknown>;
  // Loaded as CommonJS, a module's named exports may only be reachable through `default`.
  const inner = mod.default;
  if (inner && typeof inner === 'object' && Object.keys(mod).every((k) => k === 'default' || k === 'module.exports')) {
    return { ...(inner as Record<string, unknown>), ...mod };
  }
  return mod;
}

/** True when a specifier names a file (relative or absolute path) rather than a package. */
export function isPathSpecifier(spec: string): boolean {
  return spec.startsWith('.') || isAbsolute(spec) || spec.startsWith('file:');
}

/**
 * Import a local module (JS, or TypeScript through tsx) or an npm package, resolving paths and package
 * names from `baseDir` (the suite's folder) so a suite's own `node_modules` is found first.
 */
export async function importModule(spec: string, baseDir: string): Promise<Record<string, unknown>> {
  await shareBundledPackages();
  if (isPathSpecifier(spec)) {
    const file = spec.startsWith('file:') ? new URL(spec).pathname : resolve(baseDir, spec);
    if (!existsSync(file)) throw new Error(`module not found: ${file}`);
    const url = pathToFileURL(file).href;
    if (TS_FILE.test(file)) return importTypeScript(url);
    return (await import(url)) as Record<string, unknown>;
  }
  let resolved: string | undefined;
  try {
    resolved = createRequire(join(baseDir, 'noop.js')).resolve(spec);
  } catch {
    // ESM-only packages without a "require" export condition: fall back to Node's own resolution.
  }
  if (resolved) return (await import(pathToFileURL(resolved).href)) as Record<string, unknown>;
  return (await import(spec)) as Record<string, unknown>;
}
