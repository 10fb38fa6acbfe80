import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Issue 15 defects 8 and 10 through the real CLI: a hostile suite is a validation error (exit 2) naming
 * file:line:col, before any run folder exists. (It was exit 3 with no location for the alias bomb.)
 */

const root = resolve(__dirname, '../../../../..');
const bin = join(root, 'packages/harness/bin/harness.js');

function harness(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', CI: '' },
    timeout: 60_000,
  });
  return { code: r.status, stderr: r.stderr, stdout: r.stdout };
}

const HEAD = 'version: "1.0"\nname: hostile\nagent: { adapter: echo }\n';

describe('hostile suite files through the CLI', () => {
  it('an alias bomb, deep nesting and invalid UTF-8 exit 2 with file:line:col and create no run folder', () => {
    const d = mkdtempSync(join(tmpdir(), 'aeh-hostile-cli-'));
    const levels = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
    for (let i = 1; i < 9; i++)
      levels.push(
        `l${i}: &l${i} [${Array(9)
          .fill(`*l${i - 1}`)
          .join(', ')}]`,
      );
    writeFileSync(
      join(d, 'bomb.yaml'),
      `${HEAD}vars:\n${levels.map((l) => `  ${l}`).join('\n')}\ntests: [{ id: a, input: hi }]\n`,
    );
    writeFileSync(
      join(d, 'deep.json'),
      `{"version": "1.0", "name": "d", "agent": {"adapter": "echo"}, "tests": [{"id": "a", "input": ${'['.repeat(5000)}${']'.repeat(5000)}}]}`,
    );
    writeFileSync(
      join(d, 'bytes.yaml'),
      Buffer.concat([Buffer.from(`${HEAD}tests: [{ id: a, input: "x`), Buffer.from([0xff]), Buffer.from('" }]\n')]),
    );

    const bomb = harness(['run', 'bomb.yaml', '--out', 'run-bomb'], d);
    expect(bomb.code, bomb.stderr).toBe(2);
    expect(bomb.stderr).toMatch(/bomb\.yaml:\d+:\d+: aliases expand to more than 100000 nodes/);
    expect(existsSync(join(d, 'run-bomb'))).toBe(false);

    const deep = harness(['validate', 'deep.json'], d);
    expect(deep.code).toBe(2);
    expect(deep.stdout + deep.stderr).toMatch(/deep\.json:1:\d+: invalid JSON: nesting deeper than 64 levels/);

    const bytes = harness(['validate', 'bytes.yaml'], d);
    expect(bytes.code).toBe(2);
    expect(bytes.stdout + bytes.stderr).toMatch(/bytes\.yaml:4:27: invalid UTF-8: byte 0xFF/);
    // No stack trace reaches the user.
    for (const r of [bomb, deep, bytes]) expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /);
  });
});
