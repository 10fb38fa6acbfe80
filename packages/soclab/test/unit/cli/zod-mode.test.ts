import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LONG_LIVED_COMMANDS } from '../../../bin/long-lived-commands.js';
import { zodJitlessWanted } from '../../../src/cli/zod-mode.js';

describe('zod mode of the soclab CLI', () => {
  it('interprets for short commands and keeps compiled parsers for the long-lived ones', () => {
    const argv = (command?: string) => ['node', 'soclab', ...(command === undefined ? [] : [command])];
    expect(zodJitlessWanted(argv())).toBe(true);
    for (const short of ['demo', 'campaign', 'report', 'verify-chain', '--version']) {
      expect(zodJitlessWanted(argv(short)), short).toBe(true);
    }
    for (const long of LONG_LIVED_COMMANDS) expect(zodJitlessWanted(argv(long)), long).toBe(false);
  });

  it('is decided by the first import of the CLI entry, before any module that builds a schema', () => {
    const main = readFileSync(new URL('../../../src/cli/main.ts', import.meta.url), 'utf8');
    const imports = [...main.matchAll(/^import [^;]*?'([^']+)';$/gms)].map((m) => m[1]);
    expect(imports[0]).toBe('./zod-mode.js');
    expect(imports.length).toBeGreaterThan(5);
  });

  it('uses the same list of long-lived commands as bin/soclab.js: both read bin/long-lived-commands.js', () => {
    const bin = readFileSync(new URL('../../../bin/soclab.js', import.meta.url), 'utf8');
    const zodMode = readFileSync(new URL('../../../src/cli/zod-mode.ts', import.meta.url), 'utf8');
    const shared = /^import \{ LONG_LIVED_COMMANDS \} from '[./]+(?:bin\/)?long-lived-commands\.js';$/m;
    expect(bin).toMatch(shared);
    expect(zodMode).toMatch(shared);
    // Neither keeps a copy of its own: no command name of the list appears quoted in either file.
    for (const command of LONG_LIVED_COMMANDS) {
      expect(bin, `bin/soclab.js names '${command}'`).not.toContain(`'${command}'`);
      expect(zodMode, `zod-mode.ts names '${command}'`).not.toContain(`'${command}'`);
    }
    expect(bin).toContain('LONG_LIVED_COMMANDS.includes(process.argv[2]');
    expect(Object.isFrozen(LONG_LIVED_COMMANDS)).toBe(true);
  });

  it('lists only commands the CLI has (a misspelt one would silently run as a short command)', async () => {
    const { buildProgram } = await import('../../../src/cli/main.js');
    const names = new Set(buildProgram().commands.map((c) => c.name()));
    expect(LONG_LIVED_COMMANDS.length).toBeGreaterThan(0);
    for (const command of LONG_LIVED_COMMANDS) expect(names, command).toContain(command);
  });
});
