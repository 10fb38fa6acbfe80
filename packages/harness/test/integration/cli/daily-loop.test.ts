import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKeywordExpression } from '../../../src/cli/daily-loop.js';
import { ensureBuilt, harnessAsync } from '../../helpers/harness-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'harness-daily-'));
const env = { NO_COLOR: '1', CI: '1' };
const run = (args: string[], cwd = dir) => harnessAsync(args, cwd, env);

beforeAll(() => ensureBuilt());
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A mock agent that answers refund and status questions well and, unless `failing` is empty, two greetings badly. */
function suite(name: string, failing = ['hello-1', 'hello-2']): string {
  const path = join(dir, `${name}.json`);
  const cases = [
    { id: 'refund-order', name: 'Refund an order', input: 'refund A1', expected: 'Refund issued', tags: ['billing'] },
    { id: 'order-status', name: 'Where is my order', input: 'where is B2', expected: 'shipped', tags: ['orders'] },
    { id: 'hello-1', name: 'Greeting one', input: 'hello 1', expected: 'Welcome 1', tags: ['smalltalk', 'slow'] },
    { id: 'hello-2', name: 'Greeting two', input: 'hello 2', expected: 'Welcome 2', tags: ['smalltalk'] },
  ];
  writeFileSync(
    path,
    JSON.stringify({
      version: '1.0',
      name,
      agent: {
        adapter: 'mock',
        options: {
          responses: [
            { contains: 'refund', output: 'Refund issued for A1' },
            { contains: 'where is', output: 'It has shipped' },
            { contains: 'hello', output: failing.length > 0 ? 'Hi there' : 'Welcome 1 Welcome 2' },
          ],
        },
      },
      evaluators: ['contains'],
      tests: cases,
    }),
  );
  return path;
}

describe('-k expressions (degenerate input first)', () => {
  const tc = (id: string, name: string, tags: string[] = []) => ({ id, name, tags });
  it('an empty or unbalanced expression is a usage error naming the column', () => {
    expect(() => parseKeywordExpression('   ')).toThrow(/-k needs an expression/);
    expect(() => parseKeywordExpression('refund and (')).toThrow(/expected a word or \( at column 13/);
    expect(() => parseKeywordExpression('(refund')).toThrow(/expected \)/);
    expect(() => parseKeywordExpression('refund billing')).toThrow(/unexpected 'billing'/);
    expect(() => parseKeywordExpression('and')).toThrow(/unexpected 'and'/);
  });
  it('matches substrings of id, name and tags, with and/or/not and parentheses', () => {
    const p = parseKeywordExpression('(refund or STATUS) and not slow');
    expect(p(tc('refund-order', 'x'))).toBe(true);
    expect(p(tc('a', 'Order status'))).toBe(true);
    expect(p(tc('refund-2', 'x', ['slow']))).toBe(false);
    expect(p(tc('hello', 'x'))).toBe(false);
    expect(parseKeywordExpression('billing')(tc('x', 'y', ['billing']))).toBe(true);
  });
});

describe('harness run: the daily loop', () => {
  it('-k selects cases; a selection that matches nothing is exit 2 before any run folder', async () => {
    const s = suite('k-suite');
    const r = await run(['run', s, '--runs-dir', join(dir, 'k'), '--no-index', '-q', '-k', 'refund or status']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^2 passed, 0 failed, 0 errors \(100\.0% passed\)$/m);
    const none = await run(['run', s, '--runs-dir', join(dir, 'k'), '--no-index', '-k', 'nothing-like-this']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no case matches -k "nothing-like-this"');
  });

  it('-q prints the result line and failures grouped by reason (same evaluator, numbers folded), no table', async () => {
    const r = await run(['run', suite('q-suite'), '--runs-dir', join(dir, 'q'), '--no-index', '-q']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('┌');
    expect(r.stdout).toMatch(/^2 passed, 2 failed, 0 errors \(50\.0% passed\)$/m);
    expect(r.stdout).toMatch(/Failures by reason \(2 case runs\):\n\s+2 {2}contains: .* \(hello-1, hello-2\)/);
  });

  it('-v adds one line per case run with its status and reason; -q with -v is a usage error', async () => {
    const r = await run(['run', suite('v-suite'), '--runs-dir', join(dir, 'v'), '--no-index', '-v', '-c', '1']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^PASSED {2}refund-order$/m);
    expect(r.stderr).toMatch(/^FAILED {2}hello-1 {2}contains: /m);
    const both = await run(['run', suite('v-suite'), '--no-index', '-q', '-v']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('-q and -v cannot be combined');
    // -v before a command is still the version.
    expect((await run(['-v'])).stdout).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('-x stops at the first failure with exit 1 and says how to rerun', async () => {
    const runsDir = join(dir, 'x');
    const r = await run(['run', suite('x-suite'), '--runs-dir', runsDir, '--no-index', '-x', '-c', '1', '-q']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'stopped after 1 failed or errored case run (--maxfail 1); rerun them with --last-failed',
    );
    const folder = r.stderr.match(/run folder: (\S+)/)?.[1];
    const journal = readFileSync(join(folder!.startsWith('/') ? '' : dir, folder!, 'journal.jsonl'), 'utf8');
    const results = journal.split('\n').filter((l) => l.includes('"type":"result"'));
    expect(results.length).toBeLessThan(4);
    const bad = await run(['run', suite('x-suite'), '--no-index', '--maxfail', '0']);
    expect(bad.code).toBe(2);
  });

  it('--last-failed reruns only what failed in the latest run of the suite; with no earlier run it runs all', async () => {
    const runsDir = join(dir, 'lf');
    const s = suite('lf-suite');
    const first = await run(['run', s, '--runs-dir', runsDir, '--no-index', '--lf', '-q']);
    expect(first.stderr).toContain("--last-failed: no earlier run of 'lf-suite'");
    expect(first.stdout).toMatch(/^2 passed, 2 failed/m);
    const again = await run(['run', s, '--runs-dir', runsDir, '--no-index', '--last-failed', '-q']);
    expect(again.stderr).toMatch(/--last-failed: 2 case\(s\) that failed in /);
    expect(again.stdout).toMatch(/^0 passed, 2 failed, 0 errors/m);
    // Fixed agent: the failures pass; the next --lf finds nothing failed and runs every case.
    const fixed = suite('lf-suite', []);
    const green = await run(['run', fixed, '--runs-dir', runsDir, '--no-index', '--lf', '-q']);
    expect(green.stdout).toMatch(/^2 passed, 0 failed/m);
    const all = await run(['run', fixed, '--runs-dir', runsDir, '--no-index', '--lf', '-q']);
    expect(all.stderr).toContain('nothing failed in');
    expect(all.stdout).toMatch(/^4 passed, 0 failed/m);
  });
});

describe('harness init', () => {
  it('writes a starter suite, agent stub and CI workflow that run green, and refuses to overwrite', async () => {
    const here = mkdtempSync(join(dir, 'init-'));
    const made = await run(['init'], here);
    expect(made.code, made.stderr).toBe(0);
    for (const f of ['harness.yaml', 'agent.ts', '.github/workflows/harness.yml'])
      expect(existsSync(join(here, f))).toBe(true);
    expect(readFileSync(join(here, '.github/workflows/harness.yml'), 'utf8')).toContain('npx harness run harness.yaml');
    const green = await run(['run', 'harness.yaml', '--no-index', '-q'], here);
    expect(green.code, green.stderr).toBe(0);
    expect(green.stdout).toMatch(/^2 passed, 0 failed/m);
    writeFileSync(join(here, 'agent.ts'), '// mine\n');
    const again = await run(['init'], here);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('refusing to overwrite harness.yaml, agent.ts, .github/workflows/harness.yml');
    expect(readFileSync(join(here, 'agent.ts'), 'utf8')).toBe('// mine\n');
  });
});
