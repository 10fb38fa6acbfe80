import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../../../../..');
const bin = join(root, 'packages/harness/bin/harness.js');

describe('harness output into a pipe closed early', () => {
  it('exits cleanly when the reader stops after one line (| head -n 1)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeh-pipe-'));
    // Enough output (~600 KB) that the reader closes the pipe while the CLI is still writing.
    const cases = Array.from({ length: 3000 }, (_, i) =>
      JSON.stringify({ id: `c${i}`, input: `hello ${i}${' '.repeat(50)}`, expected: `hello ${i}` }),
    );
    writeFileSync(join(dir, 'cases.jsonl'), cases.join('\n'));
    writeFileSync(
      join(dir, 'suite.yaml'),
      'version: "1.0"\nname: pipe\nagent:\n  adapter: echo\nevaluators:\n  - name: exact_match\ntests: file://cases.jsonl\n',
    );
    const run = spawnSync('node', [bin, 'run', 'suite.yaml', '--out', 'run', '--format', 'json'], { cwd: dir });
    expect(run.status).toBe(0);

    const r = spawnSync(
      'bash',
      ['-o', 'pipefail', '-c', `node ${JSON.stringify(bin)} export run --format csv | head -n 1`],
      {
        cwd: dir,
        encoding: 'utf8',
      },
    );
    expect(r.stdout).toMatch(/^test_id,/);
    expect(r.stderr).not.toMatch(/EPIPE|Error/);
    expect(r.status).toBe(0);
  });
});
