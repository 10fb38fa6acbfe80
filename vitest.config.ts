import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

// Tests import workspace packages from source, so they never run against a stale build.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@aeh\/(models|harness|soclab)$/, replacement: `${root}packages/$1/src/index.ts` },
      { find: /^@aeh\/(models|harness|soclab)\/(.*?)(?:\.js)?$/, replacement: `${root}packages/$1/src/$2.ts` },
    ],
  },
  test: {
    include: ['packages/*/test/**/*.test.{ts,tsx}'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: process.env.CI ? { json: '.vitest-results.json' } : undefined,
  },
});
