import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setup } from '../../../../vitest.temp-root.js';

// The suite's global setup (vitest.temp-root.ts) gives each test run one temporary root and removes it at the end,
// so tests that forget their scratch folders no longer litter the machine's /tmp.
const ROOT = /^aeh-vitest-\d+-[A-Za-z0-9]+$/;

describe('the test run temporary root', () => {
  it('is what os.tmpdir() gives a test worker, and it exists', () => {
    expect(basename(tmpdir())).toMatch(ROOT);
    expect(existsSync(tmpdir())).toBe(true);
  });

  it('reaches processes a test spawns: Node and a POSIX tool make their temporary files inside it', () => {
    const node = spawnSync(process.execPath, ['-e', 'process.stdout.write(require("node:os").tmpdir())'], {
      encoding: 'utf8',
      env: { ...process.env },
    });
    expect(node.stdout).toBe(tmpdir());
    const mktemp = spawnSync('mktemp', ['-d'], { encoding: 'utf8', env: { ...process.env } });
    if (mktemp.status !== 0) return; // no mktemp on this machine: Node's answer above is the one that matters
    const made = mktemp.stdout.trim();
    expect(realpathSync(dirname(made))).toBe(realpathSync(tmpdir()));
  });

  it('setup makes a fresh root, points TMPDIR at it, and its teardown removes it and restores TMPDIR', () => {
    const before = process.env.TMPDIR;
    const teardown = setup();
    const root = process.env.TMPDIR as string;
    try {
      expect(root).not.toBe(before);
      expect(dirname(root)).toBe(before);
      expect(basename(root)).toMatch(new RegExp(`^aeh-vitest-${process.pid}-`));
      expect(tmpdir()).toBe(root);
      mkdtempSync(join(tmpdir(), 'forgotten-')); // a test that never cleans up
    } finally {
      teardown();
    }
    expect(existsSync(root)).toBe(false);
    expect(process.env.TMPDIR).toBe(before);
  });

  it("removes a killed run's root, never a running one's", () => {
    const parent = tmpdir();
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const abandoned = join(parent, `aeh-vitest-${gone.stdout}-AbC123`);
    const running = join(parent, `aeh-vitest-${process.ppid}-XyZ789`);
    const unrelated = join(parent, 'aeh-vitest-notapid-Q1');
    for (const dir of [abandoned, running, unrelated]) mkdirSync(join(dir, 'inside'), { recursive: true });
    setup()();
    expect(existsSync(abandoned)).toBe(false);
    expect(existsSync(running)).toBe(true);
    expect(existsSync(unrelated)).toBe(true);
  });
});
