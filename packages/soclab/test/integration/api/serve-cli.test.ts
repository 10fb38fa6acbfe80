/**
 * `soclab serve` as a real process: it binds 127.0.0.1 by default, prints its URL, generates an admin token when
 * none is configured, stops cleanly on SIGTERM, keeps its campaigns across a restart, marks a campaign it was
 * running as failed (interrupted) and rejects bad configuration with exit code 2.
 */
import { type ChildProcess, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, finished, TOKENS, tempDir, until } from '../../helpers/api.js';
import { REPO_ROOT } from '../../helpers/cli.js';
import { SOCLAB_CLI, startServe } from '../../helpers/serve.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const TOKEN_ENV = `ops:operator:${TOKENS.operator},soc-lead:approver:${TOKENS.approver},viewer:viewer:${TOKENS.viewer}`;

interface Served {
  proc: ChildProcess;
  base: string;
  stderr: () => string;
  stop: () => Promise<number | null>;
}

async function serve(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Served> {
  const { proc, base, stderr } = await startServe(args, { SOCLAB_API_TOKENS: '', SOCLAB_DATABASE_URL: '', ...env });
  return {
    proc,
    base,
    stderr,
    stop: async () => {
      if (proc.exitCode !== null) return proc.exitCode;
      // 'close', not 'exit': only then has everything the process wrote to stderr been read.
      const exited = new Promise<number | null>((r) => proc.once('close', (code) => r(code)));
      proc.kill('SIGTERM');
      return exited;
    },
  };
}

describe('soclab serve (process)', () => {
  it('binds loopback, generates a token when none is configured and never prints it', async () => {
    const dir = tempDir('soclab-serve-');
    dirs.push(dir);
    const s = await serve(['--data-dir', dir]);
    try {
      expect(s.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const file = join(dir, 'api-token');
      // stderr is a separate pipe from the stdout line we waited for: its notice may be read a moment later.
      await until(
        async () => (s.stderr().includes(file) ? true : undefined),
        'the token file notice on stderr',
        30_000,
      );
      expect(s.stderr()).toContain(file);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const token = readFileSync(file, 'utf8').trim();
      expect(token.length).toBeGreaterThanOrEqual(24);
      expect(s.stderr()).not.toContain(token);
      const me = await fetch(`${s.base}/api/v1/version`, { headers: { authorization: `Bearer ${token}` } });
      expect(await me.json()).toMatchObject({ you: { name: 'admin', role: 'admin' }, store: 'sqlite' });
      expect((await fetch(`${s.base}/api/v1/version`)).status).toBe(401);
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });

  it('keeps completed campaigns across restarts and one waiting for a person waiting, until cancelled', async () => {
    const dir = tempDir('soclab-serve-');
    dirs.push(dir);
    const env = { SOCLAB_API_TOKENS: TOKEN_ENV };
    let s = await serve(['--data-dir', dir], env);
    const done = await call(s.base, 'POST', '/api/v1/campaigns', {
      as: 'operator',
      body: { mode: 'protected', scenario_ids: ['ATK-001', 'ATK-005', 'BEN-002'] },
    });
    expect(done.status).toBe(202);
    const completed = await finished(s.base, done.body.campaign_id);
    expect(completed.summary.attack_success).toMatchObject({ numerator: 0, denominator: 2 });

    // A human-approved campaign waits for a decision; stopping the server keeps it waiting for the next start.
    const waiting = await call(s.base, 'POST', '/api/v1/campaigns', {
      as: 'operator',
      body: { mode: 'protected', scenario_ids: ['BEN-001'], approver: 'human' },
    });
    await until(async () => {
      const r = await call(s.base, 'GET', '/api/v1/approvals', { as: 'viewer' });
      return r.body.length > 0 ? true : undefined;
    }, 'the pending approval');
    expect(await s.stop()).toBe(0);
    expect(s.stderr()).toContain('soclab serve: stopping');

    s = await serve(['--data-dir', dir], env);
    try {
      const again = await call(s.base, 'GET', `/api/v1/campaigns/${done.body.campaign_id}`, { as: 'viewer' });
      expect(again.body).toMatchObject({ status: 'completed', summary: completed.summary });
      const kept = await call(s.base, 'GET', `/api/v1/campaigns/${waiting.body.campaign_id}`, { as: 'viewer' });
      expect(kept.body).toMatchObject({ status: 'running', progress: { waiting_for_approval: 1 } });
      const listed = await call(s.base, 'GET', '/api/v1/approvals', { as: 'viewer' });
      expect(listed.body.map((p: { campaign_id: string }) => p.campaign_id)).toEqual([waiting.body.campaign_id]);
      expect((await call(s.base, 'GET', '/api/v1/approvals/history', { as: 'viewer' })).body).toEqual([]);
      // Cancelling it ends the wait: the request is cancelled and the run's chain closed as interrupted.
      const cancelled = await call(s.base, 'DELETE', `/api/v1/campaigns/${waiting.body.campaign_id}`, {
        as: 'operator',
      });
      expect(cancelled.body).toMatchObject({ status: 'cancelled', error: 'cancelled by ops' });
      expect((await call(s.base, 'GET', '/api/v1/approvals', { as: 'viewer' })).body).toEqual([]);
      const history = await call(s.base, 'GET', '/api/v1/approvals/history', { as: 'viewer' });
      expect(history.body.map((h: { outcome: string }) => h.outcome)).toEqual(['cancelled']);
      const waitingRuns = await call(s.base, 'GET', '/api/v1/runs?limit=500', { as: 'viewer' });
      const run = waitingRuns.body.find((r: { run_id: string }) => r.run_id === listed.body[0].run_id);
      expect(run).toMatchObject({ ending: 'interrupted', valid: true });
      const runs = await call(s.base, 'GET', `/api/v1/runs?campaign_id=${done.body.campaign_id}`, { as: 'viewer' });
      expect(runs.body.map((r: { valid: boolean }) => r.valid)).toEqual([true, true, true]);
    } finally {
      await s.stop();
    }
  });

  it('exits 2 naming the problem for a bad configuration file or token list', () => {
    const dir = tempDir('soclab-serve-');
    dirs.push(dir);
    const file = join(dir, 'server.yaml');
    writeFileSync(file, 'tokens:\n  - { name: ci, role: root, token: short }\nport: 99999\n');
    const bad = spawnSync(process.execPath, [...SOCLAB_CLI, 'serve', '--config', file], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain(`${file}:2:23: tokens.0.role`);
    expect(bad.stderr).toContain('tokens.0.token: must be at least 16 characters');
    expect(bad.stderr).toContain('port');

    const env = { ...process.env, SOCLAB_API_TOKENS: 'ops:operator' };
    const list = spawnSync(process.execPath, [...SOCLAB_CLI, 'serve', '--data-dir', dir], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env,
    });
    expect(list.status).toBe(2);
    expect(list.stderr).toContain('SOCLAB_API_TOKENS entry 1: expected name:role:token');
  });
});
