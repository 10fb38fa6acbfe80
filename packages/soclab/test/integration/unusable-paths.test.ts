import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// A folder that cannot be created although its parent exists (/proc) made Node 20's recursive mkdir spin forever:
// `soclab demo --db /proc/x/e.sqlite` never exited. Each command now stops with the reason.
const root = resolve(__dirname, '../../../..');
const bin = join(root, 'packages/soclab/bin/soclab.js');
const scratch = mkdtempSync(join(tmpdir(), 'soclab-paths-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function soclab(args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd: scratch,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', CI: '1' },
    timeout: 60_000,
  });
  return { code: r.status, signal: r.signal, output: `${r.stdout}${r.stderr}` };
}

describe.runIf(existsSync('/proc/self'))('soclab with a path it cannot create', () => {
  it('an evidence database there: every run errors with the reason, exit 4, and nothing is promoted', () => {
    const r = soclab(['campaign', '--scenario', 'BEN-001', '--db', '/proc/soclab-no-dir/e.sqlite', '--out', 'c']);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(4);
    expect(r.output).toContain("mkdir '/proc/soclab-no-dir'");
    expect(r.output).toMatch(/authority L1/);
  });

  it('a report folder there: exit 3 naming it', () => {
    const r = soclab(['demo', '--out', '/proc/soclab-no-dir/out', '--db', join(scratch, 'e.sqlite')]);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(3);
    expect(r.output).toContain("mkdir '/proc/soclab-no-dir'");
  });
});
