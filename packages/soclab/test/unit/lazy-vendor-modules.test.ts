import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';
import { loadedBefore, modulesLoadedBy } from '../helpers/loaded-modules.js';
import { startVendor, VENDORS } from '../helpers/stand-ins/vendors.js';

// A fresh `soclab demo` or mock campaign pays for every module it evaluates (issue 22). Two stacks it never uses:
// the vendor clients (ai-sdk.ts, `@ai-sdk/*`), which load when a vendor provider is first called, and the harness
// root, which evaluates every built-in evaluator, adapter, reporter and the comparison code (the campaign imports
// `@aeh/harness/runner`, `/plugins`, `/stats` and `/secrets` instead, and loads the one built-in metric it names).
const dir = mkdtempSync(join(tmpdir(), 'soclab-lazy-vendor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const dist = join(REPO_ROOT, 'packages/soclab/dist');
const url = (path: string) => JSON.stringify(`file://${join(dist, path)}`);

const vendorEngine = (m: string) => /\/models\/dist\/providers\/ai-sdk\.js$|node_modules\/(@ai-sdk|ai)\//.test(m);
const harnessRoot = (m: string) => /\/harness\/dist\/index\.js$/.test(m);
const allBuiltins = (m: string) =>
  /\/harness\/dist\/(evaluators|adapters|reporters|metrics|comparison)\/index\.js$/.test(m);

describe('a mock campaign evaluates neither the vendor clients nor the harness root', () => {
  it.skipIf(!existsSync(join(dist, 'campaign/run.js')))(
    'runs one scenario with the mock provider and scores it with the built-in metric it names',
    async () => {
      const out = join(dir, 'campaign');
      const loaded = await modulesLoadedBy(
        dir,
        `
const { runCampaign } = await import(${url('campaign/run.js')});
await runCampaign(
  { mode: 'baseline', provider: 'mock', scenarios: ['BEN-001'], concurrency: 1 },
  { evidenceUrl: ${JSON.stringify(join(out, 'evidence.sqlite'))}, runDir: ${JSON.stringify(join(out, 'run'))} },
);`,
      );
      // Degenerate checks first: the hook saw the campaign run, the narrow harness entries, and the one built-in
      // metric the suite names (success_rate), loaded on demand; the run wrote its metrics, that one included.
      expect(loaded.some((m) => m.endsWith('/soclab/dist/campaign/run.js'))).toBe(true);
      expect(loaded.some((m) => m.endsWith('/harness/dist/runner/public.js'))).toBe(true);
      expect(loaded.some((m) => m.endsWith('/harness/dist/metrics/success-rate.js'))).toBe(true);
      expect(loaded.some((m) => m.endsWith('/models/dist/providers/mock.js'))).toBe(true);
      const experiment = JSON.parse(readFileSync(join(out, 'run', 'experiment.json'), 'utf8')) as {
        metrics: Record<string, unknown>;
      };
      expect(Object.keys(experiment.metrics)).toContain('success_rate');
      expect(Object.keys(experiment.metrics)).toContain('soclab_attack_success_rate');
      expect(loaded.filter(vendorEngine)).toEqual([]);
      expect(loaded.filter(harnessRoot)).toEqual([]);
      expect(loaded.filter(allBuiltins)).toEqual([]);
    },
  );
});

describe('a vendor provider loads its client when first called', () => {
  it.skipIf(!existsSync(join(dist, 'providers/registry.js')))(
    'building one loads no AI SDK code; its first call loads it and answers from the loopback stand-in',
    async () => {
      const openai = VENDORS.find((v) => v.provider === 'openai');
      if (!openai) throw new Error('no openai stand-in');
      const standIn = await startVendor(openai, 'competent');
      try {
        const reply = join(dir, 'reply.json');
        const loaded = await modulesLoadedBy(
          dir,
          `
const { soclabProviderRegistry } = await import(${url('providers/registry.js')});
const provider = soclabProviderRegistry().get('openai', ${JSON.stringify(openai.model)});
mark('created');
const response = await provider.generate({
  stage: 'generate', system_prompt: '', messages: [{ role: 'user', content: 'Say hello.' }], tools: [],
  response_schema: null, max_output_tokens: 64, temperature: 0, run_id: null, trace_id: null, incident_id: null,
});
appendFileSync(${JSON.stringify(reply)}, JSON.stringify({ id: provider.providerId, response }));`,
          openai.env(standIn.url, openai.key),
        );
        const created = loadedBefore(loaded, 'created');
        // Degenerate check first: the registry and the vendor's entry were loaded before the mark.
        expect(created.some((m) => m.endsWith('/models/dist/providers/openai.js'))).toBe(true);
        expect(created.filter(vendorEngine)).toEqual([]);
        const called = loadedBefore(loaded, 'end');
        expect(called.some((m) => m.endsWith('/models/dist/providers/ai-sdk.js'))).toBe(true);
        expect(called.some((m) => /node_modules\/@ai-sdk\/openai\//.test(m))).toBe(true);
        const { id, response } = JSON.parse(readFileSync(reply, 'utf8')) as {
          id: string;
          response: { provider: string; model: string; output_text: string; finish_reason: string };
        };
        expect(id).toBe('openai');
        expect(response.provider).toBe('openai');
        expect(response.model).toBe(openai.returned);
        expect(response.finish_reason).toBe('stop');
        expect(response.output_text.length).toBeGreaterThan(0);
        expect(standIn.calls).toBe(1);
      } finally {
        await standIn.close();
      }
    },
  );
});
