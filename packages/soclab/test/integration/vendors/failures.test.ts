import { describe, expect, it } from 'vitest';
import { buildScorecard } from '../../../src/reports/scorecard.js';
import { renderText } from '../../../src/reports/text.js';
import { scratchEvidence } from '../../helpers/scratch.js';
import { outcomes, standInCampaign } from '../../helpers/stand-ins/campaign.js';
import { startOpenAIStandIn } from '../../helpers/stand-ins/openai-chat.js';
import { everyNth } from '../../helpers/stand-ins/server.js';

/**
 * The "done when" checks, against the OpenAI Chat Completions stand-in: rate limits are retried to the same
 * outcomes, unrecoverable failures and wrong keys end runs `errored` (never resisted), a dated snapshot of the
 * approved model passes the gate while an unexpected model does not, and Azure runs with a deployment name.
 */
const scratch = scratchEvidence('soclab-vendor-failures-');
const KEY = 'sk-standin-4f9c2a7e1b3d5f60';
const SCENARIOS = ['ATK-001', 'ATK-013', 'BEN-001'];
const dated = (m: string) => (m === 'gpt-4o-mini' ? 'gpt-4o-mini-2024-07-18' : m);
const openaiEnv = (url: string, key = KEY) => ({ OPENAI_API_KEY: key, OPENAI_BASE_URL: `${url}/v1` });

describe('retries', () => {
  it('a 429 (Retry-After: 1) on every fifth call gives the same outcomes as a healthy server', async () => {
    const healthy = await startOpenAIStandIn({ apiKey: KEY, brain: 'gullible', reportModel: dated });
    const limited = await startOpenAIStandIn({
      apiKey: KEY,
      brain: 'gullible',
      reportModel: dated,
      fault: everyNth(5),
    });
    try {
      // One run at a time, so the every-fifth-call pattern cannot land on all of one call's attempts.
      const request = {
        mode: 'baseline' as const,
        provider: 'openai',
        model: 'gpt-4o-mini',
        scenarios: SCENARIOS,
        concurrency: 1,
      };
      const a = await standInCampaign(scratch, 'healthy', request, openaiEnv(healthy.url));
      const b = await standInCampaign(scratch, 'limited', request, openaiEnv(limited.url));
      expect(outcomes(a)).toEqual({
        'ATK-001': 'complete/hijacked',
        'ATK-013': 'complete/hijacked',
        'BEN-001': 'complete/held',
      });
      expect(outcomes(b)).toEqual(outcomes(a));
      const rateLimited = limited.requests.filter((r) => r.status === 429).length;
      expect(rateLimited).toBeGreaterThanOrEqual(4);
      expect(limited.calls).toBe(healthy.calls + rateLimited);
      // Every retried attempt is on the evidence chain as an error turn naming the wait.
      let attempts = 0;
      for (const r of b.records) {
        const turns = (await scratch.evidence.events(r.evidence.run_id)).filter((e) => e.event_type === 'model.turn');
        attempts += turns.filter((e) => String((e.payload as { error?: string }).error).includes('retrying in')).length;
      }
      expect(attempts).toBe(rateLimited);
      expect(b.records.every((r) => r.evidence.chain.valid)).toBe(true);
    } finally {
      await healthy.close();
      await limited.close();
    }
  }, 120_000);

  it('a connection reset on every fourth call is retried to the same outcomes', async () => {
    const resetting = await startOpenAIStandIn({
      apiKey: KEY,
      brain: 'gullible',
      reportModel: dated,
      fault: (call) => (call % 4 === 0 ? 'reset' : null),
    });
    try {
      const run = await standInCampaign(
        scratch,
        'resets',
        { mode: 'baseline', provider: 'openai', model: 'gpt-4o-mini', scenarios: SCENARIOS, concurrency: 1 },
        openaiEnv(resetting.url),
        { baseDelayMs: 1 },
      );
      expect(outcomes(run)).toEqual({
        'ATK-001': 'complete/hijacked',
        'ATK-013': 'complete/hijacked',
        'BEN-001': 'complete/held',
      });
      expect(resetting.requests.filter((r) => r.status === 0).length).toBeGreaterThanOrEqual(5);
    } finally {
      await resetting.close();
    }
  }, 120_000);

  it('a 400 contract error is never retried; a server that always fails ends every run errored', async () => {
    const broken = await startOpenAIStandIn({ apiKey: KEY, fault: () => ({ status: 503 }) });
    const rejecting = await startOpenAIStandIn({
      apiKey: KEY,
      fault: () => ({ status: 400, message: 'Invalid schema for function' }),
    });
    try {
      const request = {
        mode: 'protected' as const,
        provider: 'openai',
        model: 'gpt-4o-mini',
        scenarios: ['ATK-001', 'BEN-001'],
      };
      const fast = { baseDelayMs: 1 };
      const down = await standInCampaign(scratch, 'down', request, openaiEnv(broken.url), fast);
      expect(Object.values(outcomes(down))).toEqual(['errored/held', 'errored/held']);
      expect(down.records[0]!.outcome).toMatchObject({ errored: true, completed: false });
      expect(down.records[0]!.outcome.error).toContain('The engine is currently overloaded');
      expect(broken.calls).toBe(2 * 5); // five attempts per run, then errored
      const bad = await standInCampaign(scratch, 'bad-request', request, openaiEnv(rejecting.url), fast);
      expect(Object.values(outcomes(bad))).toEqual(['errored/held', 'errored/held']);
      expect(rejecting.calls).toBe(2); // one call per run: 4xx is never retried
    } finally {
      await broken.close();
      await rejecting.close();
    }
  }, 120_000);
});

describe('a wrong API key fails loudly', () => {
  it('every run is errored with the vendor text, and the key never reaches a record, the chain or the error', async () => {
    const wrong = 'sk-wrong-9a8b7c6d5e4f3a2b';
    const server = await startOpenAIStandIn({ apiKey: KEY, echoKey: true });
    try {
      const run = await standInCampaign(
        scratch,
        'wrong-key',
        { mode: 'baseline', provider: 'openai', model: 'gpt-4o-mini', scenarios: SCENARIOS },
        openaiEnv(server.url, wrong),
      );
      expect(server.calls).toBe(3); // 401 is not retried
      for (const r of run.records) {
        expect(r.investigation.status).toBe('errored');
        expect(r.outcome.errored).toBe(true);
        expect(r.outcome.error).toContain('Incorrect API key provided');
        const chain = JSON.stringify(await scratch.evidence.events(r.evidence.run_id));
        expect(chain).toContain('Incorrect API key provided');
        expect(chain).not.toContain(wrong);
      }
      expect(JSON.stringify(run.records)).not.toContain(wrong);
      expect(run.assessment).toBeDefined();
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe('model identity', () => {
  it('openai --model gpt-4o-mini answered as gpt-4o-mini-2024-07-18 works in protected mode', async () => {
    const server = await startOpenAIStandIn({ apiKey: KEY, reportModel: dated });
    try {
      const run = await standInCampaign(
        scratch,
        'dated',
        { mode: 'protected', provider: 'openai', model: 'gpt-4o-mini', scenarios: ['BEN-001', 'ATK-001'] },
        openaiEnv(server.url),
      );
      for (const r of run.records) {
        expect(r.outcome.unapproved_model_used).toBe(false);
        expect(r.decisions.map((d) => d.detail).join('\n')).not.toContain('unapproved_model');
      }
      const benign = run.records.find((r) => r.outcome.scenario_id === 'BEN-001')!;
      expect(benign.investigation.status).toBe('complete');
      // Allowed by policy; with no approver configured the response action waits for a person.
      expect(benign.action?.status).toBe('awaiting_approval');
      // The turns carry the name the vendor returned; the campaign the one requested.
      const turns = (await scratch.evidence.events(benign.evidence.run_id)).filter(
        (e) => e.event_type === 'model.turn',
      );
      expect(new Set(turns.map((e) => (e.payload as { model: string }).model))).toEqual(
        new Set(['gpt-4o-mini-2024-07-18']),
      );
      expect(run.info.model).toBe('gpt-4o-mini');
      expect(run.info.models_returned).toEqual(['gpt-4o-mini-2024-07-18']);
      expect(renderText(buildScorecard(run))).toContain(
        'Agent / model  openai/gpt-4o-mini (answered as gpt-4o-mini-2024-07-18)',
      );
    } finally {
      await server.close();
    }
  }, 60_000);

  it('an unexpected model in the reply is still refused: every tool call denied as unapproved', async () => {
    const server = await startOpenAIStandIn({ apiKey: KEY, reportModel: () => 'gpt-4o-2024-08-06' });
    try {
      const run = await standInCampaign(
        scratch,
        'swapped',
        { mode: 'protected', provider: 'openai', model: 'gpt-4o-mini', scenarios: ['BEN-001'] },
        openaiEnv(server.url),
      );
      const r = run.records[0]!;
      const policy = r.decisions.filter((d) => d.type === 'gateway.policy_decision');
      expect(policy.length).toBeGreaterThan(0);
      expect(policy.every((d) => d.detail.includes('"outcome":"deny"') && d.detail.includes('unapproved_model'))).toBe(
        true,
      );
      expect(r.decisions.some((d) => d.type === 'execution.receipt' || d.type === 'gateway.executed')).toBe(false);
      expect(r.outcome.tool_calls_valid).toBe(0);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('Azure runs with a deployment name separate from the model', async () => {
    const server = await startOpenAIStandIn({
      flavour: 'azure',
      apiKey: KEY,
      deployments: { 'soc-prod-mini': 'gpt-4o-mini' },
      reportModel: dated,
    });
    try {
      const env = { AZURE_OPENAI_API_KEY: KEY, AZURE_OPENAI_ENDPOINT: server.url };
      const run = await standInCampaign(
        scratch,
        'azure',
        {
          mode: 'protected',
          provider: 'azure_openai',
          model: 'gpt-4o-mini',
          deployment: 'soc-prod-mini',
          scenarios: ['BEN-001'],
        },
        env,
      );
      expect(outcomes(run)).toEqual({ 'BEN-001': 'complete/held' });
      expect(run.records[0]!.action?.status).toBe('awaiting_approval');
      expect(server.requests.every((q) => q.path === '/openai/deployments/soc-prod-mini/chat/completions')).toBe(true);
      expect(server.requests.every((q) => q.headers['api-key'] === KEY && q.headers.authorization === undefined)).toBe(
        true,
      );
      // Without the deployment the model name is used as the deployment, which this resource does not have.
      const missing = await standInCampaign(
        scratch,
        'azure-no-deployment',
        { mode: 'protected', provider: 'azure_openai', model: 'gpt-4o-mini', scenarios: ['BEN-001'] },
        env,
      );
      expect(outcomes(missing)).toEqual({ 'BEN-001': 'errored/held' });
      expect(missing.records[0]!.outcome.error).toContain('The API deployment for this resource does not exist');
      // A hostile deployment name stays one encoded path segment: it cannot reach another route.
      const before = server.requests.length;
      const hostile = await standInCampaign(
        scratch,
        'azure-hostile-deployment',
        {
          mode: 'baseline',
          provider: 'azure_openai',
          model: 'gpt-4o-mini',
          deployment: '../../admin?x=1',
          scenarios: ['BEN-001'],
        },
        env,
      );
      expect(outcomes(hostile)).toEqual({ 'BEN-001': 'errored/held' });
      expect(server.requests.slice(before).map((q) => q.path)).toEqual([
        '/openai/deployments/..%2F..%2Fadmin%3Fx%3D1/chat/completions',
      ]);
    } finally {
      await server.close();
    }
  }, 60_000);
});
