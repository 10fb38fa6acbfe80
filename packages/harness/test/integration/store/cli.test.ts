/**
 * The store commands as a user runs them: real `harness run`s index themselves, then `runs`, `history`,
 * `flaky` and `index` answer from the index, with the documented exit codes.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defined } from '../../helpers/defined.js';
import { writeRunFolder } from '../../unit/store/run-fixtures.js';
import { createTempDatabase, PG_URL, requirePgOrSkip, type TempDatabase } from './pg-database.js';

const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));
// The built CLI when present (`npm test` builds it first: fast start), else the sources through tsx.
const BUILT = join(ROOT, 'packages/harness/dist/cli/main.js');
const CLI_ARGS = existsSync(BUILT)
  ? [join(ROOT, 'packages/harness/bin/harness.js')]
  : ['--import', 'tsx', join(ROOT, 'packages/harness/src/cli/main.ts')];
const havePg = requirePgOrSkip();

let dir: string;
let runsDir: string;

function harness(...args: string[]) {
  const r = spawnSync(process.execPath, [...CLI_ARGS, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', HARNESS_STORE_URL: '' },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function suiteFile(name: string, answer: string, quarantine?: string[]): string {
  const file = join(dir, `${name}-${answer.replace(/\W/g, '')}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      version: '1.0',
      name,
      agent: {
        adapter: 'mock',
        label: `bot-${answer}`,
        options: { responses: [{ contains: 'capital', output: answer }] },
      },
      metrics: ['success_rate'],
      ...(quarantine ? { quarantine } : {}),
      tests: [
        { id: 'capital', input: 'capital of France?', expected: 'Paris', evaluators: ['contains'] },
        { id: 'steady', input: 'say hi', expected: 'Default', evaluators: ['contains'] },
      ],
    }),
  );
  return file;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'store-cli-'));
  runsDir = join(dir, 'runs');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('store commands', () => {
  it('harness run indexes each finished run; runs list/show read the index', () => {
    const first = harness('run', suiteFile('geo', 'Paris'), '--runs-dir', runsDir, '--format', 'json', '--no-progress');
    expect(first.code).toBe(0);
    expect(existsSync(join(runsDir, 'index.sqlite'))).toBe(true);
    const list = harness('runs', 'list', '--runs-dir', runsDir);
    expect(list.code).toBe(0);
    expect(list.out).toMatch(/geo\s+│ bot-Paris\s+│ completed │ 2\s+│ 100\.0%/);
    const json = JSON.parse(harness('runs', 'list', '--runs-dir', runsDir, '--json').out) as {
      items: { id: string }[];
    };
    const show = harness(
      'runs',
      'show',
      defined(json.items[0], 'the newest run').id.slice(0, 6),
      '--runs-dir',
      runsDir,
    );
    expect(show.code).toBe(0);
    expect(show.out).toMatch(/cases\s+2 \(passed 2, failed 0/);
    expect(show.out).toMatch(/success_rate\s+│ 100\.0%/);
  });

  it('history prints the metric per run and a sparkline; flaky finds the flipping case', () => {
    // Four more runs: capital flips fail/pass/fail/pass; "steady" always passes.
    for (const answer of ['Lyon', 'Paris', 'Lyon', 'Paris']) {
      const r = harness(
        'run',
        suiteFile('geo', answer, ['steady']),
        '--runs-dir',
        runsDir,
        '--format',
        'json',
        '--no-progress',
        '--no-thresholds',
      );
      expect(r.err).not.toMatch(/warning/);
      spawnSync('sleep', ['1']); // run folders are named to the second
    }
    const history = harness('history', 'geo', '--metric', 'success_rate', '--runs-dir', runsDir);
    expect(history.code).toBe(0);
    expect(history.out).toMatch(/100\.0%[\s\S]*50\.0%[\s\S]*100\.0%[\s\S]*50\.0%[\s\S]*100\.0%/);
    expect(history.out).toMatch(/success_rate {2}█▁█▁█ {2}100\.0% → 100\.0% {2}\(min 0\.500, max 1\.000, 5 runs/);

    const flaky = harness('flaky', 'geo', '--runs-dir', runsDir);
    expect(flaky.code).toBe(0);
    expect(flaky.out).toMatch(/capital\s+│ 5\s+│ 60% \(3\/5\)\s+│ 4\s+│ 100%\s+│ ✓✗✓✗✓/);
    expect(flaky.out).not.toMatch(/steady/);
    // With --fail-on-flaky, an unquarantined flaky case fails the command (exit 1).
    expect(harness('flaky', 'geo', '--runs-dir', runsDir, '--fail-on-flaky').code).toBe(1);
    // Quarantine comes from the suite file (or the latest run): then it is reported, and does not fail.
    const quarantined = harness(
      'flaky',
      suiteFile('geo', 'Paris', ['capital']),
      '--runs-dir',
      runsDir,
      '--fail-on-flaky',
    );
    expect(quarantined.out).toMatch(/capital .*quarantined/);
    expect(quarantined.code).toBe(0);
  });

  it('usage mistakes exit 2 with a message naming what exists', () => {
    const unknownRun = harness('runs', 'show', 'nope', '--runs-dir', runsDir);
    expect(unknownRun.code).toBe(2);
    expect(unknownRun.err).toMatch(/no stored run matches 'nope'/);
    const unknownSuite = harness('history', 'gepo', '--runs-dir', runsDir);
    expect(unknownSuite.code).toBe(2);
    expect(unknownSuite.err).toMatch(/no stored runs of suite 'gepo' \(known: geo\)/);
    const unknownMetric = harness('history', 'geo', '--metric', 'acuracy', '--runs-dir', runsDir);
    expect(unknownMetric.code).toBe(2);
    expect(unknownMetric.err).toMatch(/recorded: success_rate/);
    expect(harness('runs', 'list', '--limit', 'x', '--runs-dir', runsDir).code).toBe(2);
  });

  it('index rebuild re-reads run folders; runs rm deletes a run and its folder', () => {
    rmSync(join(runsDir, 'index.sqlite'));
    rmSync(join(runsDir, 'index.sqlite-wal'), { force: true });
    rmSync(join(runsDir, 'index.sqlite-shm'), { force: true });
    const rebuilt = harness('index', 'rebuild', '--runs-dir', runsDir);
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.out).toMatch(/indexed 5 runs \(10 results\)/);
    const before = JSON.parse(harness('runs', 'list', '--runs-dir', runsDir, '--json').out) as {
      items: { id: string; location: string }[];
    };
    const victim = defined(before.items[0], 'the newest run');
    const rm = harness('runs', 'rm', victim.id, '--runs-dir', runsDir);
    expect(rm.code).toBe(0);
    expect(rm.out).toContain(`deleted ${victim.location}`);
    expect(existsSync(victim.location)).toBe(false);
    const after = JSON.parse(harness('runs', 'list', '--runs-dir', runsDir, '--json').out) as { total: number };
    expect(after.total).toBe(4);
  });

  it('index add accepts a run folder from anywhere and reports what it indexed', () => {
    const elsewhere = writeRunFolder(dir, {
      id: 'outside-run',
      suite: 'geo',
      startedAt: '2020-01-01T00:00:00Z',
      cases: [{ id: 'a', status: 'passed' }],
    });
    const add = harness('index', 'add', elsewhere, '--runs-dir', runsDir);
    expect(add.out).toMatch(/outside-run: 1 results indexed \(completed\)/);
    expect(harness('index', 'add', join(dir, 'missing'), '--runs-dir', runsDir).code).toBe(2);
  });
});

describe.skipIf(!havePg)('store commands on PostgreSQL', () => {
  let db: TempDatabase;
  beforeAll(async () => {
    db = await createTempDatabase(PG_URL as string, 'harness_cli_test');
  });
  afterAll(async () => db?.drop());

  it('harness run --store postgres://... indexes there, and runs list reads it back', () => {
    const pgRuns = join(dir, 'pg-runs');
    const run = harness(
      'run',
      suiteFile('pg-suite', 'Paris'),
      '--runs-dir',
      pgRuns,
      '--store',
      db.url,
      '--format',
      'json',
      '--no-progress',
    );
    expect(run.code).toBe(0);
    expect(existsSync(join(pgRuns, 'index.sqlite'))).toBe(false);
    const list = harness('runs', 'list', '--store', db.url, '--runs-dir', join(dir, 'empty'));
    expect(list.out).toMatch(/pg-suite\s+│ bot-Paris\s+│ completed/);
  });
});

describe('a PostgreSQL run index that never answers', () => {
  it("fails after the URL's connect_timeout with AEH_ERR_STORE_OPEN (exit 3) instead of waiting forever", async () => {
    // The kernel accepts the connection (listen backlog) and nothing speaks PostgreSQL on it: a hung server.
    const silent = createServer(() => {});
    await new Promise<void>((ok) => silent.listen(0, '127.0.0.1', ok));
    try {
      const { port } = silent.address() as { port: number };
      const r = harness('runs', 'list', '--store', `postgres://u:pw-Canary-8812@127.0.0.1:${port}/x?connect_timeout=1`);
      expect(r.code, r.err).toBe(3);
      expect(r.err).toContain(`[AEH_ERR_STORE_OPEN] cannot open the run index at postgres://u:***@127.0.0.1:${port}/x`);
      expect(r.err).toMatch(/timeout/i);
      expect(r.err).not.toContain('Canary-8812');
    } finally {
      silent.close();
    }
  });
});
