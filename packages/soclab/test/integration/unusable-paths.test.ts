import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { EvidenceDatabaseUnavailableError, runCampaign, runStudy } from '@aeh/soclab';
import { afterAll, describe, expect, it } from 'vitest';
import { failWithoutPostgresUnderCi, PG_URL } from '../helpers/postgres.js';

// A folder that cannot be created although its parent exists (/proc) made Node 20's recursive mkdir spin forever:
// `soclab demo --db /proc/x/e.sqlite` never exited. Each command now stops with the reason, and an evidence
// database that cannot be opened stops a campaign before its first run (it used to error every run, exit 4).
const root = resolve(__dirname, '../../../..');
const bin = join(root, 'packages/soclab/bin/soclab.js');
const scratch = mkdtempSync(join(tmpdir(), 'soclab-paths-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function soclab(args: string[], cwd = scratch) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', CI: '1', SOCLAB_DATABASE_URL: '' },
    timeout: 60_000,
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout, output: `${r.stdout}${r.stderr}` };
}

/** A fresh working folder per case, so "nothing was written" is checked on an empty folder. */
function workdir(): string {
  return mkdtempSync(join(scratch, 'case-'));
}

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const address = server.address();
  await new Promise<void>((ok) => server.close(() => ok()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** What a user sees when no run started: exit 3, one message, no progress, no scorecard, no output folder. */
function expectStoppedBeforeAnyRun(r: ReturnType<typeof soclab>, cwd: string, out: string) {
  expect(r.signal).toBeNull();
  expect(r.code).toBe(3);
  expect(r.output).not.toMatch(/ERRORED|authority L\d|runs?,|scorecard/);
  expect(r.stdout).toBe('');
  expect(existsSync(join(cwd, out))).toBe(false);
}

describe.runIf(existsSync('/proc/self'))('soclab with a path it cannot create', () => {
  it('an evidence database there: exit 3 naming the database and the reason, before any run', () => {
    const cwd = workdir();
    const r = soclab(['campaign', '--scenario', 'BEN-001', '--db', '/proc/soclab-no-dir/e.sqlite', '--out', 'c'], cwd);
    expectStoppedBeforeAnyRun(r, cwd, 'c');
    expect(r.output).toContain('evidence database /proc/soclab-no-dir/e.sqlite cannot be opened');
    expect(r.output).toContain("mkdir '/proc/soclab-no-dir'");
  });

  it('the same database named by SOCLAB_DATABASE_URL stops `soclab demo` the same way', () => {
    const cwd = workdir();
    const r = spawnSync(process.execPath, [bin, 'demo', '--out', 'd'], {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', CI: '1', SOCLAB_DATABASE_URL: '/proc/soclab-no-dir/e.sqlite' },
      timeout: 60_000,
    });
    expectStoppedBeforeAnyRun(
      { code: r.status, signal: r.signal, stdout: r.stdout, output: `${r.stdout}${r.stderr}` },
      cwd,
      'd',
    );
    expect(r.stderr).toContain('evidence database /proc/soclab-no-dir/e.sqlite cannot be opened');
  });

  it('a report folder there: exit 3 naming it', () => {
    const r = soclab(['demo', '--out', '/proc/soclab-no-dir/out', '--db', join(scratch, 'e.sqlite')]);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(3);
    expect(r.output).toContain("mkdir '/proc/soclab-no-dir'");
  });
});

describe('soclab with an evidence database it cannot open', () => {
  it('a path under a regular file: exit 3 naming it (ENOTDIR), nothing written', () => {
    const cwd = workdir();
    writeFileSync(join(cwd, 'plain-file'), 'not a folder\n');
    const r = soclab(['demo', '--db', 'plain-file/e.sqlite', '--out', 'd'], cwd);
    expectStoppedBeforeAnyRun(r, cwd, 'd');
    expect(r.output).toContain(`evidence database ${join(cwd, 'plain-file/e.sqlite')} cannot be opened`);
    expect(r.output).toContain('ENOTDIR');
  });

  it('a file that is not SQLite: exit 3 naming it, and the file is left as it was', () => {
    const cwd = workdir();
    const text = 'these are my notes, not a database\n'.repeat(200);
    writeFileSync(join(cwd, 'notes.txt'), text);
    const r = soclab(['campaign', '--scenario', 'BEN-001', '--db', 'notes.txt', '--out', 'c'], cwd);
    expectStoppedBeforeAnyRun(r, cwd, 'c');
    expect(r.output).toContain(`evidence database ${join(cwd, 'notes.txt')} cannot be opened`);
    expect(r.output).toMatch(/not a database/);
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe(text);
  });

  it('PostgreSQL on a closed port: exit 3, the URL shown without its password', async () => {
    const cwd = workdir();
    const port = await closedPort();
    const password = 'pw-Canary-4417%40x';
    const r = soclab(
      [
        'campaign',
        '--scenario',
        'BEN-001',
        '--db',
        `postgres://soclab:${password}@127.0.0.1:${port}/evidence`,
        '--out',
        'c',
      ],
      cwd,
    );
    expectStoppedBeforeAnyRun(r, cwd, 'c');
    expect(r.output).toContain(`evidence database postgres://soclab:***@127.0.0.1:${port}/evidence cannot be opened`);
    expect(r.output).toContain('ECONNREFUSED');
    expect(r.output).not.toContain('Canary-4417');
  });

  it('a password in the query string, or in a URL that does not parse, is not shown either', async () => {
    const cwd = workdir();
    const port = await closedPort();
    const inQuery = soclab(
      ['campaign', '--scenario', 'BEN-001', '--out', 'c', '--db'].concat(
        `postgres://soclab@127.0.0.1:${port}/evidence?password=pw-Canary-6620&sslmode=disable`,
      ),
      cwd,
    );
    expectStoppedBeforeAnyRun(inQuery, cwd, 'c');
    expect(inQuery.output).toContain(
      `evidence database postgres://soclab@127.0.0.1:${port}/evidence?password=***&sslmode=disable cannot be opened`,
    );
    expect(inQuery.output).not.toContain('Canary-6620');
    // A port out of range: the URL does not parse, so nothing after the scheme is shown.
    const unparseable = soclab(
      ['campaign', '--scenario', 'BEN-001', '--out', 'c', '--db', 'postgres://soclab:pw-Canary@6621@127.0.0.1:99999/e'],
      cwd,
    );
    expectStoppedBeforeAnyRun(unparseable, cwd, 'c');
    expect(unparseable.output).toContain(
      'evidence database postgres://... (not a valid URL, not shown) cannot be opened',
    );
    expect(unparseable.output).not.toContain('Canary');
    expect(unparseable.output).not.toContain('6621');
  });
});

describe('soclab with a PostgreSQL server that never answers', () => {
  it("exit 3 after the URL's connect_timeout instead of waiting forever, URL without its password", async () => {
    // The kernel completes the connection (the listen backlog) and nothing ever speaks PostgreSQL on it: what a
    // server behind a firewall that drops packets, or a hung server, looks like to the client.
    const silent = createServer(() => {});
    await new Promise<void>((ok) => silent.listen(0, '127.0.0.1', ok));
    try {
      const { port } = silent.address() as { port: number };
      const cwd = workdir();
      const r = soclab(
        [
          'campaign',
          '--scenario',
          'BEN-001',
          '--db',
          `postgres://soclab:pw-Canary-3391@127.0.0.1:${port}/e?connect_timeout=1`,
          '--out',
          'c',
        ],
        cwd,
      );
      expectStoppedBeforeAnyRun(r, cwd, 'c');
      expect(r.output).toContain(
        `evidence database postgres://soclab:***@127.0.0.1:${port}/e?connect_timeout=1 cannot be opened`,
      );
      expect(r.output).toMatch(/timeout/i);
      expect(r.output).not.toContain('Canary-3391');
    } finally {
      silent.close();
    }
  });
});

describe('soclab with a PostgreSQL evidence database the server refuses', () => {
  failWithoutPostgresUnderCi('a database the server does not have: exit 3, URL without its password');
  it.runIf(PG_URL)('a database the server does not have: exit 3, URL without its password', () => {
    const cwd = workdir();
    const url = new URL(PG_URL ?? '');
    url.password = 'pw-Canary-5521';
    url.pathname = `/soclab_missing_${process.pid}`;
    const r = soclab(['demo', '--db', url.toString(), '--out', 'd'], cwd);
    expectStoppedBeforeAnyRun(r, cwd, 'd');
    url.password = '***';
    expect(r.output).toContain(`evidence database ${url.toString()} cannot be opened`);
    expect(r.output).toMatch(/soclab_missing_\d+" does not exist/);
    expect(r.output).not.toContain('Canary-5521');
  });
});

describe('soclab worker with an evidence database it cannot open', () => {
  it('exits 3 naming it before it takes a job (before it even reaches Redis)', async () => {
    const cwd = workdir();
    writeFileSync(join(cwd, 'plain-file'), 'x');
    const port = await closedPort();
    const r = soclab(['worker', '--queue', `redis://127.0.0.1:${port}`, '--db', 'plain-file/e.sqlite'], cwd);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(3);
    expect(r.output).toContain(`evidence database ${join(cwd, 'plain-file/e.sqlite')} cannot be opened`);
    expect(r.output).not.toContain('Redis');
  });
});

describe('runCampaign and runStudy with an evidence database they cannot open', () => {
  it('runCampaign throws EvidenceDatabaseUnavailableError before any run and writes no run folder', async () => {
    const cwd = workdir();
    writeFileSync(join(cwd, 'plain-file'), 'x');
    const runDir = join(cwd, 'campaign');
    let started = 0;
    const error = await runCampaign(
      { mode: 'protected', scenarios: ['BEN-001', 'ATK-001'] },
      { runDir, evidenceUrl: join(cwd, 'plain-file/e.sqlite'), onStart: () => started++ },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EvidenceDatabaseUnavailableError);
    expect(error).toMatchObject({ location: join(cwd, 'plain-file/e.sqlite') });
    expect(started).toBe(0);
    expect(existsSync(runDir)).toBe(false);
  });

  it('runStudy (baseline then protected) throws it before the baseline runs; the output folder is not created', async () => {
    const cwd = workdir();
    writeFileSync(join(cwd, 'plain-file'), 'x');
    const out = join(cwd, 'study');
    const started: string[] = [];
    const error = await runStudy(
      { compare: true, scenarios: ['BEN-001'], out, seed: 3 },
      { evidenceUrl: join(cwd, 'plain-file/e.sqlite'), onCampaignStart: ({ label }) => started.push(label) },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EvidenceDatabaseUnavailableError);
    expect(started).toEqual([]);
    expect(existsSync(out)).toBe(false);
  });

  it('the same campaign with a usable database runs (the check is not a refusal of every database)', async () => {
    const cwd = workdir();
    const runDir = join(cwd, 'campaign');
    const run = await runCampaign(
      { mode: 'protected', scenarios: ['BEN-001'] },
      { runDir, evidenceUrl: join(cwd, 'fresh/e.sqlite') },
    );
    expect(run.records).toHaveLength(1);
    expect(run.info.errors).toEqual([]);
    expect(existsSync(join(cwd, 'fresh/e.sqlite'))).toBe(true);
  });
});
