import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

// One alias per entry of each package's `exports` map (`./dist/x.js` -> `src/x.ts`), so a test can import only
// what a user can: a subpath the map does not name fails here as it does for an installed package.
function sourceAliases(): { find: RegExp; replacement: string }[] {
  return ['models', 'harness', 'soclab'].flatMap((pkg) => {
    const manifest = JSON.parse(readFileSync(`${root}packages/${pkg}/package.json`, 'utf8')) as {
      exports: Record<string, string | { default: string }>;
    };
    return Object.entries(manifest.exports).flatMap(([subpath, target]) => {
      if (typeof target === 'string') return [];
      const specifier = `@aeh/${pkg}${subpath.slice(1)}`.replace(/[/.]/g, (c) => `\\${c}`);
      const source = target.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts');
      return [{ find: new RegExp(`^${specifier}$`), replacement: `${root}packages/${pkg}/${source}` }];
    });
  });
}

// Tests import workspace packages from source, so they never run against a stale build.
export default defineConfig({
  resolve: {
    alias: sourceAliases(),
  },
  test: {
    include: ['packages/*/test/**/*.test.{ts,tsx}'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One temporary folder per run (TMPDIR for the workers and what they spawn), removed at the end: see the file.
    globalSetup: ['./vitest.temp-root.ts'],
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: process.env.CI ? { json: '.vitest-results.json' } : undefined,
  },
});
