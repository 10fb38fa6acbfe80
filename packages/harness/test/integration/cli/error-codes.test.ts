import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, harnessAsync } from '../../helpers/harness-cli.js';

// What a user or a script sees when a command fails: the stable code in the message, and, for machine output,
// one JSON object on stdout (docs/errors.md).

describe('harness CLI error codes', () => {
  let dir: string;
  beforeAll(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'aeh-error-codes-'));
    writeFileSync(join(dir, 'bad.yaml'), 'version: "1"\nname: bad\nagent: { adapter: no_such_adapter }\ntests: []\n');
  });

  it('leads the message with the code and keeps stdout empty without machine output', async () => {
    const r = await harnessAsync(['run', 'bad.yaml', '--no-index'], dir, {});
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^harness: \[AEH_ERR_SUITE_INVALID\] suite is invalid/m);
    expect(r.stderr).toContain('no_such_adapter');
    expect(r.stdout).toBe('');
  });

  it('prints the error as one JSON object on stdout with --format json', async () => {
    const r = await harnessAsync(['run', 'bad.yaml', '--no-index', '--format', 'json'], dir, {});
    expect(r.code).toBe(2);
    const parsed = JSON.parse(r.stdout) as { error: { code: string; message: string; exit_code: number } };
    expect(parsed.error.code).toBe('AEH_ERR_SUITE_INVALID');
    expect(parsed.error.exit_code).toBe(2);
    expect(parsed.error.message).toContain('no_such_adapter');
  });

  it('keeps the code of the error a command reports for it (runs show with --json)', async () => {
    const runsDir = join(dir, 'runs');
    mkdirSync(runsDir, { recursive: true });
    const r = await harnessAsync(['runs', 'show', 'nope', '--json', '--runs-dir', runsDir], dir, {});
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({
      error: { code: 'AEH_ERR_RUN_LOOKUP', message: "no stored run matches 'nope'", exit_code: 2 },
    });
    expect(r.stderr).toBe("harness: [AEH_ERR_RUN_LOOKUP] no stored run matches 'nope'\n");
  });

  it('a bad flag value or an unknown option (found by the option parser) has the code and the JSON form too', async () => {
    const limit = await harnessAsync(['runs', 'list', '--json', '--limit', 'abc', '--runs-dir', dir], dir, {});
    expect(limit.code).toBe(2);
    expect(limit.stderr).toMatch(/^harness: \[AEH_ERR_CLI\] option '-n, --limit <n>' argument 'abc' is invalid/m);
    const parsed = JSON.parse(limit.stdout) as { error: { code: string; message: string; exit_code: number } };
    expect(parsed.error).toMatchObject({ code: 'AEH_ERR_CLI', exit_code: 2 });
    expect(parsed.error.message).toMatch(/--limit expects a positive integer, got 'abc'/);
    const unknown = await harnessAsync(['run', 'bad.yaml', '--concurency', '3'], dir, {});
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /^harness: \[AEH_ERR_CLI\] unknown option '--concurency'\n\(Did you mean --concurrency\?\)/m,
    );
    expect(unknown.stdout).toBe('');
  });
});
