import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { zodJitlessWanted } from '../../../src/cli/zod-mode.js';

describe('zod mode of the soclab CLI', () => {
  it('interprets for short commands and keeps compiled parsers for the long-lived ones', () => {
    const argv = (command?: string) => ['node', 'soclab', ...(command === undefined ? [] : [command])];
    expect(zodJitlessWanted(argv())).toBe(true);
    for (const short of ['demo', 'campaign', 'report', 'verify-chain', '--version']) {
      expect(zodJitlessWanted(argv(short)), short).toBe(true);
    }
    for (const long of ['serve', 'worker', 'mcp']) expect(zodJitlessWanted(argv(long)), long).toBe(false);
  });

  it('is decided by the first import of the CLI entry, before any module that builds a schema', () => {
    const main = readFileSync(new URL('../../../src/cli/main.ts', import.meta.url), 'utf8');
    const imports = [...main.matchAll(/^import [^;]*?'([^']+)';$/gms)].map((m) => m[1]);
    expect(imports[0]).toBe('./zod-mode.js');
    expect(imports.length).toBeGreaterThan(5);
  });
});
