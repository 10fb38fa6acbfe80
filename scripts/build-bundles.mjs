#!/usr/bin/env node
// Bundles each CLI (harness, soclab) into a few files under packages/<pkg>/dist/bundle/ with esbuild (issue 22).
// Node 20 has no module compile cache: a 1-case `harness run` otherwise opens ~600 ES modules (Kysely alone 263,
// zod 95, yaml 72), and resolving, reading and compiling them is most of the run's fixed cost.
//
// - Runs after `tsc -b` (npm run build / pretest). bin/<cli>.js uses the bundle only while it is newer than every
//   .tsbuildinfo it was built from, else the tsc output, so a `tsc -b` alone never leaves a stale bundle in use.
// - One build per CLI with code splitting and several entries: `cli`, and one per workspace package the CLI
//   contains (`harness`, `models`, `soclab`). A plugin that imports '@aeh/harness' from the bundled CLI is pointed at
//   the bundle's own `harness.js` (plugins/import.ts), so it shares the CLI's module instances and registries.
// - Lazy `await import()`s stay lazy (separate chunks); native, WebAssembly and rarely used heavy packages stay
//   external and load from node_modules as before.
// - `import.meta.url` in package sources is rewritten to the URL of the file's tsc output (dist/<same path>.js),
//   so data folders, package.json and worker scripts found relative to a source file resolve as before.
// - Linked source maps; the bins turn them on where a stack can be printed (HARNESS_DEBUG, SOCLAB_DEBUG, servers).
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Packages loaded from node_modules at run time: native or WebAssembly code, or heavy and only used on demand. */
const EXTERNAL = [
  'better-sqlite3',
  'bindings',
  '@cedar-policy/cedar-wasm',
  'playwright-core',
  'pg',
  'pg-native',
  'bullmq',
  'ioredis',
  'fastify',
  /^@fastify\//,
  'fastify-type-provider-zod',
  /^@modelcontextprotocol\//,
  /^@opentelemetry\//,
  'undici',
  'ai',
  /^@ai-sdk\//,
  'tsx',
  'pino',
  'pino-pretty',
  'react',
  'react-dom',
  'ajv',
  'ajv-formats',
  'xmlbuilder2',
  'jose',
];

const packageName = (spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
const isExternal = (spec) => EXTERNAL.some((e) => (typeof e === 'string' ? e === packageName(spec) : e.test(spec)));

/** The `exports` map of a workspace package: subpath ('.', './cli', './*') -> its tsc output ('./dist/x.js'). */
function exportsOf(pkg) {
  const manifest = JSON.parse(readFileSync(join(root, 'packages', pkg, 'package.json'), 'utf8'));
  // Only code: './package.json' and the like are read from the package folder as before.
  return Object.fromEntries(
    Object.entries(manifest.exports)
      .map(([k, v]) => [k, typeof v === 'string' ? v : (v.default ?? v.import)])
      .filter(([, target]) => /^\.\/dist\/.*\.js$/.test(target)),
  );
}

/** './dist/a/b.js' of a package -> its source file (src/a/b.ts or .tsx). */
function sourceOf(pkg, distPath) {
  const base = join(root, 'packages', pkg, distPath.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, ''));
  for (const ext of ['.ts', '.tsx']) if (existsSync(base + ext)) return base + ext;
  throw new Error(`packages/${pkg}: no source file for ${distPath}`);
}

/** Workspace imports ('@aeh/harness', '@aeh/harness/cli') resolve, through the package's exports map, to sources. */
function workspaceSource(spec) {
  const m = /^@aeh\/(models|harness|soclab)(\/.+)?$/.exec(spec);
  if (!m) return undefined;
  const subpath = `.${m[2] ?? ''}`;
  const map = exportsOf(m[1]);
  if (map[subpath]) return sourceOf(m[1], map[subpath]);
  for (const [key, target] of Object.entries(map)) {
    if (!key.includes('*')) continue;
    const [prefix, suffix] = key.split('*');
    if (subpath.startsWith(prefix) && subpath.endsWith(suffix)) {
      return sourceOf(m[1], target.replace('*', subpath.slice(prefix.length, subpath.length - suffix.length)));
    }
  }
  throw new Error(`${spec} is not exported by packages/${m[1]}/package.json`);
}

/**
 * zod's `z.locales` namespace holds ~60 translations of its error messages (~500 KB of JavaScript, a quarter of what a
 * 1-case `harness run` loads). No package source uses them (English is zod's default, registered by its schemas
 * module), so inside the bundle the namespace holds English only. Plugins import zod from node_modules, whole.
 */
const ZOD_LOCALES = 'aeh-zod-locales';

/**
 * The report renderer inside the CommonJS bundle, so V8's code cache holds it: from node_modules, `react-dom/server`
 * compiled both of React's server renderers (~560 KB, the streaming one unused) on every report-writing run. Each of
 * these specifiers becomes a module that takes React's production build from the bundle when NODE_ENV is
 * `production` (as the report commands set it), else React from node_modules as before (development build with
 * NODE_ENV=development). Of `react-dom/server` only the legacy renderer (renderToStaticMarkup) is bundled. The
 * modules are evaluated when first required, by the report renderers' own lazy import.
 */
const REACT = 'aeh-react';
const REACT_PRODUCTION = {
  react: 'react/cjs/react.production.js',
  'react/jsx-runtime': 'react/cjs/react-jsx-runtime.production.js',
  'react-dom': 'react-dom/cjs/react-dom.production.js',
  'react-dom/server': 'react-dom/cjs/react-dom-server-legacy.node.production.js',
};

function bundlePlugin(outdir, { commonjs = false, lazyZodJit = false, bundledReact = false } = {}) {
  return {
    name: 'aeh-bundle',
    setup(b) {
      if (bundledReact) {
        b.onResolve({ filter: /^react(-dom)?(\/|$)/ }, (args) => {
          // The fallback inside the module below: React from node_modules, as outside the bundle.
          if (args.namespace === REACT) return { path: args.path, external: true };
          if (!Object.hasOwn(REACT_PRODUCTION, args.path)) throw new Error(`${args.importer}: no bundled ${args.path}`);
          return { path: args.path, namespace: REACT };
        });
        b.onLoad({ filter: /.*/, namespace: REACT }, (args) => ({
          contents: `module.exports = process.env.NODE_ENV === 'production' ? require(${JSON.stringify(join(root, 'node_modules', REACT_PRODUCTION[args.path]))}) : require(${JSON.stringify(args.path)});`,
          loader: 'js',
          resolveDir: root,
        }));
      }
      b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
        /[/\\]node_modules[/\\]zod[/\\]v4[/\\]/.test(args.importer)
          ? { path: join(dirname(args.importer), '..', 'locales', 'en.js'), namespace: ZOD_LOCALES }
          : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: ZOD_LOCALES }, (args) => ({
        contents: `export { default as en } from ${JSON.stringify(args.path)};`,
        resolveDir: dirname(args.path),
      }));
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('node:')) return { path: args.path, external: true };
        const source = workspaceSource(args.path);
        if (source) return { path: source };
        if (isExternal(args.path)) return { path: args.path, external: true };
        return undefined;
      });
      // zod compiles a fast parser (new Function) for each object schema on its first parse: ~5% of a 1-case
      // `harness run`, for schemas most runs parse once. In the harness bundle a schema compiles it on its 17th parse
      // instead; before that it takes zod's own interpreted path (the one `jitless` selects), with the same result.
      if (lazyZodJit) {
        b.onLoad({ filter: /[/\\]node_modules[/\\]zod[/\\]v4[/\\]core[/\\]schemas\.js$/ }, (args) => {
          const edits = [
            ['    let fastpass;\n', '    let fastpass;\n    let __aehParses = 0;\n'],
            [
              'if (jit && fastEnabled && ctx?.async === false && ctx.jitless !== true) {',
              'if (jit && fastEnabled && ctx?.async === false && ctx.jitless !== true && (fastpass || ++__aehParses > 16)) {',
            ],
          ];
          let contents = readFileSync(args.path, 'utf8');
          for (const [from, to] of edits) {
            if (contents.split(from).length !== 2)
              throw new Error(`${args.path}: zod's object parser changed; review the lazy-JIT edit`);
            contents = contents.replace(from, to);
          }
          return { contents, loader: 'js', resolveDir: dirname(args.path) };
        });
      }
      // commander requires child_process (with net and dgram, ~2.5% of a 1-case `harness run`) at load, for the
      // executable subcommands no CLI here has: it is required on the first spawn instead.
      b.onLoad({ filter: /[/\\]node_modules[/\\]commander[/\\]lib[/\\]command\.js$/ }, (args) => {
        const eager = "const childProcess = require('node:child_process');";
        const contents = readFileSync(args.path, 'utf8');
        if (!contents.includes(eager))
          throw new Error(`${args.path}: commander no longer requires child_process as expected`);
        return {
          contents: contents.replace(
            eager,
            "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };",
          ),
          loader: 'js',
        };
      });
      b.onLoad({ filter: /[/\\]packages[/\\](models|harness|soclab)[/\\]src[/\\].*\.tsx?$/ }, (args) => {
        let contents = readFileSync(args.path, 'utf8');
        // CommonJS has no top-level await: the CommonJS build's own entry calls main() (see bundleCliCommonJs).
        if (commonjs && /[/\\]src[/\\]cli[/\\]main\.ts$/.test(args.path)) {
          contents = contents.replace(/^await main\(\);$/m, '');
        }
        // `await import('yaml')` of a CommonJS package inlined in a split bundle yields only `default`
        // (module.exports); Node gives named exports too. Give the bundle's dynamic imports Node's shape.
        contents = contents.replace(/\bawait import\('([^'.][^']*)'\)/g, (call, spec) =>
          spec.startsWith('node:') || isExternal(spec) || workspaceSource(spec)
            ? call
            : `${call}.then(__aehCjsInterop)`,
        );
        if (contents.includes('import.meta.url')) {
          const rel = relative(join(root, 'packages'), args.path).split(/[/\\]/);
          // packages/<pkg>/src/a/b.ts -> packages/<pkg>/dist/a/b.js, relative to the bundle folder.
          const tscOutput = join(root, 'packages', rel[0], 'dist', ...rel.slice(2)).replace(/\.tsx?$/, '.js');
          const fromBundle = relative(outdir, tscOutput).split(/[/\\]/).join('/');
          contents = contents.replaceAll(
            'import.meta.url',
            `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`,
          );
        }
        return { contents, loader: args.path.endsWith('.tsx') ? 'tsx' : 'ts' };
      });
    },
  };
}

/** Builds one CLI: `cli.js` plus an entry per workspace package it contains, sharing chunks. */
async function bundleCli(pkg, packagesInside) {
  const outdir = join(root, 'packages', pkg, 'dist', 'bundle');
  const entryPoints = { cli: join(root, 'packages', pkg, 'src', 'cli', 'main.ts') };
  // Every named export of each package inside becomes an entry ('@aeh/harness/cli' -> harness.cli.js), so a
  // plugin's import of any of them lands on the bundle's copy. Wildcard subpaths are left to the tsc output.
  const entries = {};
  for (const p of packagesInside) {
    for (const [subpath, target] of Object.entries(exportsOf(p))) {
      if (subpath.includes('*')) continue;
      const name = `${p}${subpath.slice(1).replaceAll('/', '.')}`;
      entryPoints[name] = sourceOf(p, target);
      entries[`@aeh/${p}${subpath.slice(1)}`] = `./${name}.js`;
    }
  }
  const esm = await build({
    entryPoints,
    outdir,
    bundle: true,
    splitting: true,
    metafile: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    sourcesContent: false,
    // Chunks sit beside the entries: import.meta.url-relative paths below assume one folder.
    chunkNames: '[name]-[hash]',
    logLevel: 'warning',
    tsconfig: join(root, 'packages', pkg, 'tsconfig.json'),
    plugins: [bundlePlugin(outdir, { lazyZodJit: pkg === 'harness' })],
    banner: {
      // CommonJS packages inside the bundle call require() for Node built-ins; ES modules have no require.
      // The entries map tells plugins/import.ts which of the bundle’s files stands for which workspace package.
      js: [
        "import { createRequire as __aehCreateRequire } from 'node:module';",
        'const require = __aehCreateRequire(import.meta.url);',
        "const __aehCjsInterop = (m) => { const d = m.default; return Object.keys(m).length === 1 && d !== null && (typeof d === 'object' || typeof d === 'function') ? { ...d, default: d } : m; };",
        `globalThis[Symbol.for('aeh.bundle.entries')] ??= Object.fromEntries(Object.entries(${JSON.stringify(entries)}).map(([k, v]) => [k, new URL(v, import.meta.url).href]));`,
      ].join('\n'),
    },
  });
  removeStaleChunks(outdir, esm.metafile);
  return { outdir, entryPoints, entries, metafile: esm.metafile };
}

/**
 * Chunk names carry a content hash, so every build that changes code adds new chunk files beside the old ones
 * (over a thousand after a day of rebuilding, all shipped by `npm pack`). Remove the chunks this build did not write.
 */
function removeStaleChunks(outdir, metafile) {
  const written = new Set(Object.keys(metafile.outputs).map((path) => resolve(root, path)));
  for (const name of readdirSync(outdir)) {
    if (/-[A-Z0-9]{8}\.js(\.map)?$/.test(name) && !written.has(join(outdir, name))) rmSync(join(outdir, name));
  }
}

/**
 * A CLI once more, as one CommonJS file (`cli.cjs`) that its bin loads through `vm.Script` with a
 * V8 code cache (scripts/code-cache-loader.mjs, copied beside it) (Node 20 caches no ES module code): compiling the bundle is most of a 1-case run's fixed cost.
 * - Its entry publishes a loader of every package entry on a global; `cjs-<entry>.js` facades re-export what it
 *   loads, and this build's entries map points plugins at those, so plugins share the CLI's registries.
 * - `import()` in code compiled from V8's cache fails on Node 20 ("A dynamic import callback was not specified"),
 *   so every `import(` of the output calls the bin's own `import()` through a global instead.
 */
async function bundleCliCommonJs(pkg, { outdir, entryPoints, entries, metafile }) {
  const names = Object.keys(entryPoints).filter((name) => name !== 'cli');
  const facades = {};
  for (const name of names) {
    const output = Object.entries(metafile.outputs).find(
      ([, o]) => o.entryPoint && resolve(root, o.entryPoint) === entryPoints[name],
    );
    if (!output) throw new Error(`no output for entry ${name}`);
    const spec = Object.keys(entries).find((k) => entries[k] === `./${name}.js`);
    const exported = output[1].exports;
    const named = exported.filter((e) => e !== 'default');
    const lines = [
      `const __aehModule = await globalThis[Symbol.for('aeh.bundle.modules')][${JSON.stringify(spec)}]();`,
    ];
    if (named.length > 0) lines.push(`export const { ${named.join(', ')} } = __aehModule;`);
    if (exported.includes('default')) lines.push('export default __aehModule.default;');
    writeFileSync(join(outdir, `cjs-${name}.js`), `${lines.join('\n')}\n`);
    facades[spec] = `./cjs-${name}.js`;
  }
  // Each package entry loads when a plugin first imports it (esbuild keeps an internal import() lazy).
  const entry = [
    `import { main } from ${JSON.stringify(entryPoints.cli)};`,
    `globalThis[Symbol.for('aeh.bundle.modules')] = { ${names.map((name, i) => `${JSON.stringify(Object.keys(facades)[i])}: () => import(${JSON.stringify(entryPoints[name])})`).join(', ')} };`,
    'void main();',
  ].join('\n');
  const outfile = join(outdir, 'cli.cjs');
  await build({
    stdin: {
      contents: entry,
      resolveDir: join(root, 'packages', pkg, 'src', 'cli'),
      sourcefile: 'cli-commonjs-entry.ts',
      loader: 'ts',
    },
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
    tsconfig: join(root, 'packages', pkg, 'tsconfig.json'),
    plugins: [bundlePlugin(outdir, { commonjs: true, lazyZodJit: pkg === 'harness', bundledReact: pkg === 'soclab' })],
    define: { 'import.meta.url': '__aehModuleUrl' },
    banner: {
      js: [
        "const __aehModuleUrl = require('node:url').pathToFileURL(__filename).href;",
        "const __aehImport = globalThis[Symbol.for('aeh.import')];",
        "const __aehCjsInterop = (m) => { const d = m.default; return Object.keys(m).length === 1 && d !== null && (typeof d === 'object' || typeof d === 'function') ? { ...d, default: d } : m; };",
        `globalThis[Symbol.for('aeh.bundle.entries')] ??= Object.fromEntries(Object.entries(${JSON.stringify(facades)}).map(([k, v]) => [k, new URL(v, __aehModuleUrl).href]));`,
      ].join('\n'),
    },
  });
  let code = readFileSync(outfile, 'utf8').replace(/(?<![\w$.])import\(/g, '__aehImport(');
  code = asciiOnly(code, outfile);
  writeFileSync(outfile, code);
  copyFileSync(join(root, 'scripts', 'code-cache-loader.mjs'), join(outdir, 'code-cache.js'));
}

/**
 * Each CLI bundle as ASCII, so its bin reads it as a one-byte string (scripts/code-cache-loader.mjs). esbuild
 * already escapes strings and templates; what is left is in comments and regular expression literals, where `\uXXXX`
 * (UTF-16 units, so a surrogate pair for astral characters, which a `u` regex reads as one code point) means the same
 * character. One after a backslash would not, so the build stops there instead.
 */
function asciiOnly(code, file) {
  const escaped = /\\[^\x00-\x7f]/.exec(code);
  if (escaped) throw new Error(`${file}: a backslash before a non-ASCII character at offset ${escaped.index}`);
  return code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const started = performance.now();
await bundleCliCommonJs('harness', await bundleCli('harness', ['harness', 'models']));
await bundleCliCommonJs('soclab', await bundleCli('soclab', ['soclab', 'harness', 'models']));
console.log(`bundled the harness and soclab CLIs in ${(performance.now() - started).toFixed(0)} ms`);
