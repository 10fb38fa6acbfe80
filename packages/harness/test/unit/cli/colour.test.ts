import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { colourWanted, tableStyle } from '../../../src/core/colour.js';

const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));
const ESC = '\u001b[';

describe('colour rules (degenerate environments first)', () => {
  it('an empty environment and no terminal: no colour', () => {
    expect(colourWanted({}, {})).toBe(false);
    expect(colourWanted({ isTTY: false }, { FORCE_COLOR: '' })).toBe(false);
  });
  it('a terminal colours unless NO_COLOR or TERM=dumb; FORCE_COLOR wins both ways, also in a pipe', () => {
    expect(colourWanted({ isTTY: true }, {})).toBe(true);
    expect(colourWanted({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colourWanted({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
    expect(colourWanted({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(colourWanted({ isTTY: false }, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(true);
    expect(colourWanted({ isTTY: true }, { FORCE_COLOR: '0' })).toBe(false);
  });
  it('table headers are bold, never red', () => {
    expect(tableStyle(true).head).toEqual(['bold']);
    expect(tableStyle(false)).toEqual({ head: [], border: [] });
  });
});

describe('harness run output in a pipe', () => {
  const run = (env: Record<string, string>) =>
    spawnSync(
      process.execPath,
      [
        join(ROOT, 'packages/harness/bin/harness.js'),
        'run',
        join(ROOT, 'examples/basic/benchmark.yaml'),
        '--no-index',
        '--runs-dir',
        mkdtempSync(join(tmpdir(), 'harness-colour-')),
      ],
      { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } },
    );
  it('is plain by default and with NO_COLOR; FORCE_COLOR colours it, headers not red', () => {
    expect(run({}).stdout).not.toContain(ESC);
    expect(run({ NO_COLOR: '1' }).stdout).not.toContain(ESC);
    const forced = run({ FORCE_COLOR: '1' }).stdout;
    expect(forced).toContain(ESC);
    // The table header row: bold (1m), not red (31m).
    const header = forced.split('\n').find((l) => l.includes('status') && l.includes('score')) ?? '';
    expect(header).toContain(`${ESC}1m`);
    expect(header).not.toContain(`${ESC}31m`);
  }, 60_000);
});
