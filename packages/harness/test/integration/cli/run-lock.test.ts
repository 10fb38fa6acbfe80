import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Issue 15 defect 3: two `harness run --resume` on one run folder ran cases twice and tore the journal. A run
 * folder has one writer: the second process exits 2 naming the holder's pid, and a SIGKILLed holder leaves no
 * lock behind. Real CLI processes (the built bin), real SIGKILL.
 */

const root = resolve(__dirname, '../../../../..');
const bin = join(root, 'packages/harness/bin/harness.js');
const CASES = 40;
const REPEAT = 2;
const TOTAL = CASES * REPEAT;

interface Finished {
  code: number | null;
  stderr: string;
}

function start(args: string[], cwd: string): { child: ChildProcess; done: Promise<Finished> } {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', CI: '' },
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const done = new Promise<Finished>((r) => child.on('close', (code) => r({ code, stderr })));
  return { child, done };
}

/** Every parsed journal line (a line torn by SIGKILL is skipped, as `--resume` skips it). */
function journalLines(journal: string): { type: string; result?: { test_id: string; repeat: number } }[] {
  return readFileSync(journal, 'utf8')
    .split('\n')
    .slice(0, -1)
    .flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return [];
      }
    });
}

const resultKeys = (journal: string) =>
  journalLines(journal)
    .filter((l) => l.type === 'result')
    .map((l) => `${l.result?.test_id}#${l.result?.repeat}`);

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const until = Date.now() + 45_000;
  while (Date.now() < until) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('one writer per run folder', () => {
  it('after SIGKILL, two racing --resume: one finishes every case exactly once, the other exits 2 naming its pid', async () => {
    const d = mkdtempSync(join(tmpdir(), 'aeh-lock-cli-'));
    writeFileSync(
      join(d, 'suite.yaml'),
      `version: "1.0"
name: racing
agent: { adapter: echo, options: { delay_ms: 150 } }
evaluators: [exact_match]
metrics: [success_rate]
tests: file://cases.jsonl
`,
    );
    writeFileSync(
      join(d, 'cases.jsonl'),
      Array.from({ length: CASES }, (_, i) => JSON.stringify({ id: `c${i}`, input: `m${i}`, expected: `m${i}` })).join(
        '\n',
      ),
    );
    const journal = join(d, 'run/journal.jsonl');
    const first = start(['run', 'suite.yaml', '--out', 'run', '--repeat', String(REPEAT), '-c', '2'], d);
    await waitFor(() => existsSync(journal) && resultKeys(journal).length >= 10, '10 journaled results');
    first.child.kill('SIGKILL');
    await first.done;
    const before = resultKeys(journal);
    expect(before.length).toBeLessThan(TOTAL);
    // The killed run's holder file is left behind, naming a process that no longer exists.
    expect(JSON.parse(readFileSync(join(d, 'run/run.lock.json'), 'utf8')).pid).toBe(first.child.pid);

    const args = ['run', 'suite.yaml', '--resume', 'run', '--repeat', String(REPEAT), '--format', 'json'];
    const a = start(args, d);
    const b = start(args, d);
    const [ra, rb] = await Promise.all([a.done, b.done]);
    const codes = [ra.code, rb.code].sort();
    expect(codes, `stderr a: ${ra.stderr}\nstderr b: ${rb.stderr}`).toEqual([0, 2]);
    const [winner, loser] = ra.code === 0 ? [a, rb] : [b, ra];
    expect(loser.stderr).toMatch(
      new RegExp(`harness: \\[AEH_ERR_RUN_LOCKED\\] run folder .*run is in use by process ${winner.child.pid} `),
    );

    // Exactly the recovered state: every case x repeat once, the killed run's results kept, nothing torn after.
    const after = resultKeys(journal);
    expect(after).toHaveLength(TOTAL);
    expect(new Set(after).size).toBe(TOTAL);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(journalLines(journal).filter((l) => l.type === 'resume')).toHaveLength(1);
    const exp = JSON.parse(readFileSync(join(d, 'run/experiment.json'), 'utf8'));
    expect(exp.state).toBe('completed');
    expect(exp.results).toHaveLength(TOTAL);
    expect(exp.metrics.success_rate.value).toBe(1);
    // Released at the end: no holder is named any more, and the folder can be resumed again (nothing left to run).
    expect(existsSync(join(d, 'run/run.lock.json'))).toBe(false);
    const again = await start(args, d).done;
    expect(again.code, again.stderr).toBe(0);
    expect(resultKeys(journal)).toHaveLength(TOTAL);
  });
});
