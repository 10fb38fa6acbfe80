import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, soclabIsolated as soclab } from '../../helpers/cli.js';

// Bring your own agent without editing the package: a provider entry in a module of your own, loaded with
// --provider-module (docs/custom-provider.md, option 2). Bad modules are refused before anything runs (exit 2).

const dir = mkdtempSync(join(tmpdir(), 'soclab-provider-module-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// The module imports @aeh/soclab as an installed package would (through node_modules and the exports map).
mkdirSync(join(dir, 'node_modules', '@aeh'), { recursive: true });
symlinkSync(join(REPO_ROOT, 'packages', 'soclab'), join(dir, 'node_modules', '@aeh', 'soclab'));

function moduleFile(name: string, source: string): string {
  const file = join(dir, name);
  writeFileSync(file, source);
  return file;
}

const ENTRY = (id: string) => `{
  id: '${id}',
  adapter: 'corp agent gateway (stand-in)',
  adapterVersion: '0.1.0',
  envVars: [],
  capabilities: { tool_calling: true, structured_output: true, streaming: false, usage_reporting: true, multimodal_input: false },
  defaultModel: 'corp-agent-1',
  validationLevel: 'deterministic',
  validation: 'deterministic stand-in for a third-party agent',
  description: 'Third-party provider loaded from a module',
  create: (_env, model) => createMockProvider({ model, behavior: 'grounded' }),
}`;

describe('soclab --provider-module', () => {
  it('refuses a missing file, a folder, and a module that exports no provider entry, naming the path (exit 2)', async () => {
    const missing = join(dir, 'missing.mjs');
    const r = await soclab(['campaign', '--provider-module', missing, '--scenario', 'BEN-001', '--out', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${missing}: provider module not found`);

    const folder = await soclab(['providers', '--provider-module', dir]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain(`${dir}: provider module not found`);

    const empty = moduleFile('nothing.mjs', 'export const answer = 42;\nexport function helper() {}\n');
    const none = await soclab(['providers', '--provider-module', empty]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`${empty}: exports no provider entry`);
    expect(none.stderr).toContain('it exports answer, helper');
  });

  it('refuses a module that throws at import, and one whose entry is malformed, with the field at fault', async () => {
    const throws = moduleFile('throws.mjs', "throw new Error('gateway URL not set');\n");
    const r = await soclab(['campaign', '--provider-module', throws, '--scenario', 'BEN-001', '--out', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${throws}: provider module failed to load: gateway URL not set`);

    const malformed = moduleFile(
      'malformed.mjs',
      `import { createMockProvider } from '@aeh/soclab';\nexport const corp = { ...${ENTRY('corp')}, capabilities: { tool_calling: 'yes' } };\n`,
    );
    const bad = await soclab(['providers', '--provider-module', malformed]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${malformed}: export 'corp' is not a valid provider entry`);
    expect(bad.stderr).toContain('capabilities.tool_calling');
  });

  it('never lets a module stand in for a built-in provider, and never runs on queue workers that lack it', async () => {
    const impostor = moduleFile(
      'impostor.mjs',
      `import { createMockProvider } from '@aeh/soclab';\nexport const openai = ${ENTRY('openai')};\n`,
    );
    const r = await soclab(['providers', '--provider-module', impostor]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("uses the id 'openai' of a built-in provider");

    const good = moduleFile(
      'queued.mjs',
      `import { createMockProvider } from '@aeh/soclab';\nexport const q = ${ENTRY('queued_agent')};\n`,
    );
    const queued = await soclab([
      'campaign',
      '--provider-module',
      good,
      '--provider',
      'queued_agent',
      '--queue',
      'redis://127.0.0.1:1',
      '--out',
      dir,
    ]);
    expect(queued.code).toBe(2);
    expect(queued.stderr).toContain('cannot be combined with --queue');
  });

  it('lists the module’s provider and runs a campaign with it, with no file of the package edited', async () => {
    const file = moduleFile(
      'corp-agent.mjs',
      `import { createMockProvider } from '@aeh/soclab';\nexport const corpAgent = ${ENTRY('corp_agent')};\n`,
    );
    const list = await soclab(['providers', '--json', '--provider-module', file]);
    expect(list.code, list.stderr).toBe(0);
    const row = (JSON.parse(list.stdout) as { provider_id: string; default_model: string }[]).find(
      (p) => p.provider_id === 'corp_agent',
    );
    expect(row?.default_model).toBe('corp-agent-1');

    const out = join(dir, 'campaign');
    const run = await soclab([
      'campaign',
      '--provider-module',
      file,
      '--provider',
      'corp_agent',
      '--scenario',
      'ATK-001,BEN-001',
      '--out',
      out,
      '--db',
      join(dir, 'evidence.sqlite'),
    ]);
    expect(run.code, run.stderr).toBe(0);
    const summary = readFileSync(join(out, 'protected-summary.txt'), 'utf8');
    // The model label is the module entry's default: the campaign built its agent from the loaded entry.
    expect(summary).toMatch(/Agent \/ model\s+\S+\/corp-agent-1/);
    expect(summary).toContain('Runs           2 (1 attack, 1 benign)');
  });
});
