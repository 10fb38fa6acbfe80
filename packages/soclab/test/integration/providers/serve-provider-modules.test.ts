import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, SOCLAB_MAIN, soclabIsolated as soclab } from '../../helpers/cli.js';

// `provider_modules:` in a `soclab serve` config: the API's campaigns can choose a third-party provider loaded
// from a module, as `--provider-module` does on the CLI; a bad module stops the server before it listens (exit 2).
const dir = mkdtempSync(join(tmpdir(), 'soclab-serve-modules-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});
mkdirSync(join(dir, 'node_modules', '@aeh'), { recursive: true });
symlinkSync(join(REPO_ROOT, 'packages', 'soclab'), join(dir, 'node_modules', '@aeh', 'soclab'));
writeFileSync(
  join(dir, 'corp-agent.mjs'),
  `import { createMockProvider } from '@aeh/soclab';
export const corpAgent = {
  id: 'corp_agent', adapter: 'corp agent (stand-in)', adapterVersion: '0.1.0', envVars: [],
  capabilities: { tool_calling: true, structured_output: true, streaming: false, usage_reporting: true, multimodal_input: false },
  defaultModel: 'corp-agent-1', validationLevel: 'deterministic', validation: 'deterministic stand-in',
  description: 'Third-party provider loaded by the server', create: (_env, model) => createMockProvider({ model }),
};
`,
);
writeFileSync(join(dir, 'throws.mjs'), "throw new Error('no gateway configured');\n");
const TOKEN = 'operator-token-0123456789';

function config(name: string, lines: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, [`data_dir: ${join(dir, `data-${name}`)}`, ...lines].join('\n'));
  return file;
}

describe('soclab serve provider_modules', () => {
  it('refuses a missing module, one that throws, and provider_modules with queue_url, before listening (exit 2)', async () => {
    const missing = config('missing.yaml', ['provider_modules: [./nowhere.mjs]']);
    const r = await soclab(['serve', '--config', missing, '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${join(dir, 'nowhere.mjs')}: provider module not found (from ${missing}: provider_modules`,
    );

    const throwing = config('throws.yaml', ['provider_modules: [./throws.mjs]']);
    const t = await soclab(['serve', '--config', throwing, '--port', '0']);
    expect(t.code).toBe(2);
    expect(t.stderr).toContain(`${join(dir, 'throws.mjs')}: provider module failed to load: no gateway configured`);

    const queued = config('queued.yaml', ['provider_modules: [./corp-agent.mjs]', 'queue_url: redis://127.0.0.1:1']);
    const q = await soclab(['serve', '--config', queued, '--port', '0']);
    expect(q.code).toBe(2);
    expect(q.stderr).toContain('provider_modules: cannot be combined with queue_url');
  });

  it('lists the module’s provider in the API catalog and runs an API campaign with it on a worker thread', async () => {
    const file = config('good.yaml', [
      'provider_modules: [./corp-agent.mjs]',
      `tokens: [{ name: ops, role: operator, token: ${TOKEN} }]`,
    ]);
    const child = spawn(process.execPath, ['--import', 'tsx', SOCLAB_MAIN, 'serve', '--config', file, '--port', '0'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const url = await new Promise<string>((done, fail) => {
      let out = '';
      child.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        const line = out.split('\n').find((l) => l.startsWith('http'));
        if (line) done(line.trim());
      });
      child.on('exit', (code) => fail(new Error(`serve exited ${code}: ${stderr}`)));
    });
    const res = await fetch(`${url}/api/v1/providers`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    const providers = (await res.json()) as { provider_id: string; default_model: string }[];
    expect(providers.find((p) => p.provider_id === 'corp_agent')?.default_model).toBe('corp-agent-1');

    // The campaign runs on a worker thread (campaign_workers defaults to 1), which loads the module itself.
    const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    const created = await fetch(`${url}/api/v1/campaigns`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ mode: 'protected', provider_id: 'corp_agent', scenario_ids: ['BEN-001'] }),
    });
    expect(created.status, await created.clone().text()).toBe(202);
    const id = ((await created.json()) as { campaign_id: string }).campaign_id;
    let campaign: { status: string; error?: unknown; summary?: { runs?: number } } = { status: 'queued' };
    for (let i = 0; i < 300 && !['completed', 'failed'].includes(campaign.status); i++) {
      await new Promise((r) => setTimeout(r, 200));
      campaign = (await (await fetch(`${url}/api/v1/campaigns/${id}`, { headers: auth })).json()) as typeof campaign;
    }
    expect(campaign.status, JSON.stringify(campaign.error ?? null)).toBe('completed');
    child.kill('SIGTERM');
  });
});
