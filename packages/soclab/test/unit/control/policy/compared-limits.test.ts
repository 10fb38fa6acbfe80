import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CedarPolicyEngine, compilePolicyFolder } from '../../../../src/control/policy/cedar-engine.js';
import {
  COUNTED_LIMITS,
  countersComparedOnlyWithMaxima,
  LIMIT_MAXIMUMS,
  replaceComparedCounters,
} from '../../../../src/control/policy/compared-limits.js';
import { toCedarRequest } from '../../../../src/control/policy/facts.js';
import { BUNDLED_POLICY_DIR, readPolicyFolder } from '../../../../src/control/policy/folder.js';
import { PolicyInput, type PolicyInputData } from '../../../../src/control/policy/input.js';
import { precompiledPolicyFolder } from '../../../../src/control/policy/precompiled.js';
import { loadPolicyTestTable } from '../../../../src/control/policy/test-table.js';
import { precompilePolicyFolder } from '../../../../src/precompile/build.js';
import { temporaryDirs } from '../../../helpers/temporary-dirs.js';

const temporaryDir = temporaryDirs();

/** Cedar's JSON form of each policy in `text`. */
function forms(text: string): unknown[] {
  const parts = cedar.policySetTextToParts(text);
  if (parts.type !== 'success') throw new Error(`test setup: ${JSON.stringify(parts.errors)}`);
  return parts.policies.map((p) => {
    const json = cedar.policyToJson(p);
    if (json.type !== 'success') throw new Error('test setup: policy does not convert');
    return json.json;
  });
}

const forbidWhen = (condition: string) => `forbid (principal, action, resource) when { ${condition} };`;

describe('which run counters the policies only compare with their maxima', () => {
  it('all three in the bundled policies, from the files and from a build artifact alike', () => {
    expect(compilePolicyFolder(readPolicyFolder(BUNDLED_POLICY_DIR)).comparedCounters).toEqual(COUNTED_LIMITS);
    const dir = temporaryDir('soclab-cl-policy-');
    cpSync(BUNDLED_POLICY_DIR, dir, { recursive: true });
    const artifacts = temporaryDir('soclab-cl-artifacts-');
    precompilePolicyFolder(dir, artifacts);
    const found = precompiledPolicyFolder(readPolicyFolder(dir), artifacts);
    expect('compiled' in found && found.compiled.comparedCounters).toEqual(COUNTED_LIMITS);
  });

  it.each([
    [
      'the counter against its own maximum, either side, every comparison',
      'context.limits.calls_made >= context.limits.max_calls || context.limits.max_calls == context.limits.calls_made',
      COUNTED_LIMITS,
    ],
    ['a `has` test reads no value', 'context.limits has elapsed_ms && context has limits', COUNTED_LIMITS],
    ['a counter against a constant', 'context.limits.elapsed_ms > 5000', ['calls_made', 'cost_used_micro_usd']],
    [
      'a counter against another counter’s maximum',
      'context.limits.calls_made < context.limits.max_elapsed_ms',
      ['cost_used_micro_usd', 'elapsed_ms'],
    ],
    [
      'arithmetic on a counter',
      'context.limits.cost_used_micro_usd + 1 < context.limits.max_cost_micro_usd',
      ['calls_made', 'elapsed_ms'],
    ],
    ['a counter inside a set', '[context.limits.calls_made].contains(3)', ['cost_used_micro_usd', 'elapsed_ms']],
    ['the limits record as a whole', 'context.limits == context.limits', []],
    [
      'the limits record through a conditional',
      '(if true then context.limits else context.limits).calls_made < context.limits.max_calls',
      [],
    ],
    ['the context as a whole', 'context == context', []],
  ] as const)('%s', (_name, condition, expected) => {
    const permit =
      'permit (principal, action, resource) when { context.limits.elapsed_ms < context.limits.max_elapsed_ms };';
    expect(countersComparedOnlyWithMaxima(forms(`${permit}\n${forbidWhen(condition)}`))).toEqual(expected);
  });

  it('a shape it does not know counts as a read (never the other way round)', () => {
    expect(countersComparedOnlyWithMaxima([{ conditions: [{ body: { Var: 'context' } }] }])).toEqual([]);
    expect(
      countersComparedOnlyWithMaxima([{ conditions: [{ body: { '<': { left: 'odd', right: { Var: 'context' } } } }] }]),
    ).toEqual([]);
    expect(countersComparedOnlyWithMaxima([])).toEqual(COUNTED_LIMITS);
  });
});

describe('replacing a counter by 0, its maximum or one more', () => {
  const compare = (op: string, a: number, b: number) =>
    ({ '<': a < b, '<=': a <= b, '>': a > b, '>=': a >= b, '==': a === b, '!=': a !== b })[op];

  it('compares with the maximum exactly as the real count does (every comparison, either side)', () => {
    const count = fc.oneof(fc.integer({ min: 0, max: 50 }), fc.nat(), fc.constant(Number.MAX_SAFE_INTEGER));
    fc.assert(
      fc.property(count, count, fc.constantFrom('<', '<=', '>', '>=', '==', '!='), (value, maximum, op) => {
        // On the request itself: a maximum of 0 reaches Cedar too (a limit under half a millisecond).
        const request = toCedarRequest(inputWith({}));
        Object.assign(request.context.limits as Record<string, number>, { calls_made: value, max_calls: maximum });
        const replaced = replaceComparedCounters(request, ['calls_made']).context.limits as Record<string, number>;
        expect(compare(op, replaced.calls_made!, maximum)).toBe(compare(op, value, maximum));
        expect(compare(op, maximum, replaced.calls_made!)).toBe(compare(op, maximum, value));
      }),
      { seed: 20261202, numRuns: 400 },
    );
  });

  it('leaves counters it was not given, and the maxima, as they are', () => {
    const request = toCedarRequest(inputWith({ calls_made: 7, elapsed_seconds: 12.5 }));
    const limits = replaceComparedCounters(request, ['calls_made']).context.limits as Record<string, number>;
    expect(limits).toMatchObject({ calls_made: 0, max_calls: 40, elapsed_ms: 12_500, max_elapsed_ms: 300_000 });
  });
});

describe('decisions', () => {
  const cases = loadPolicyTestTable(BUNDLED_POLICY_DIR)
    .map((c) => c.resolvedInput)
    .filter((input) => PolicyInput.safeParse(input).success) as PolicyInputData[];

  it('are what Cedar decides on the exact counts (checked against Cedar called directly), around every limit', () => {
    const folder = readPolicyFolder(BUNDLED_POLICY_DIR);
    const staticPolicies = Object.fromEntries(
      folder.policies.flatMap((f, i) =>
        (cedar.policySetTextToParts(f.text) as { policies: string[] }).policies.map((p, j) => [`p${i}_${j}`, p]),
      ),
    );
    const engine = CedarPolicyEngine.load();
    let checked = 0;
    const limits = [
      { calls_made: 39, max_calls: 40 },
      { calls_made: 40, max_calls: 40 },
      { calls_made: 41, max_calls: 40 },
      { cost_used_usd: 1.999999, max_cost_usd: 2 },
      { cost_used_usd: 2, max_cost_usd: 2 },
      { elapsed_seconds: 299.999, max_elapsed_seconds: 300 },
      { elapsed_seconds: 300, max_elapsed_seconds: 300 },
      { elapsed_seconds: 3000, max_elapsed_seconds: 300 },
      { calls_made: 0, elapsed_seconds: 0 },
    ];
    for (const base of cases.slice(0, 12)) {
      for (const change of limits) {
        const input = structuredClone(base) as { context: { limits: Record<string, number> } };
        Object.assign(input.context.limits, change);
        const exact = toCedarRequest(PolicyInput.parse(input));
        const direct = cedar.isAuthorized({ ...exact, policies: { staticPolicies } });
        if (direct.type !== 'success') throw new Error(JSON.stringify(direct.errors));
        const decision = engine.decideSync(input as PolicyInputData);
        expect(decision.outcome === 'deny', JSON.stringify(change)).toBe(direct.response.decision === 'deny');
        if (direct.response.decision === 'deny') {
          const denying = direct.response.diagnostics.reason.map((id) => staticPolicies[id]);
          expect(denying.some((text) => text?.includes('limit_exceeded'))).toBe(
            decision.reason_codes.includes('limit_exceeded'),
          );
        }
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(100);
  });

  it('ask Cedar about the run’s distance from its limits, not its exact counts, with the bundled policies', () => {
    const seen: unknown[] = [];
    const engine = CedarPolicyEngine.load({
      authorizer: (call) => {
        seen.push(call.context);
        return cedar.statefulIsAuthorized(call);
      },
    });
    const base = cases[0]!;
    for (let calls = 1; calls <= 5; calls++) {
      const input = structuredClone(base) as { context: { limits: Record<string, number> } };
      Object.assign(input.context.limits, { calls_made: calls, elapsed_seconds: calls * 0.37, cost_used_usd: 0.01 });
      engine.decideSync(input as PolicyInputData);
    }
    // Five calls at different counts, costs and times: one question.
    expect(new Set(seen.map((c) => JSON.stringify(c))).size).toBe(1);
    expect((seen[0] as { limits: unknown }).limits).toMatchObject({
      calls_made: 0,
      cost_used_micro_usd: 0,
      elapsed_ms: 0,
    });
  });

  it('a policy that reads a counter otherwise gets the exact count (a user folder with a 5-second rule)', () => {
    const dir = temporaryDir('soclab-cl-policy-');
    cpSync(BUNDLED_POLICY_DIR, dir, { recursive: true });
    const deny = join(dir, 'deny.cedar');
    writeFileSync(
      deny,
      `${readFileSync(deny, 'utf8')}\n@id("deny_slow_run")\n@reason("limit_exceeded")\n${forbidWhen('context.limits.elapsed_ms > 5000')}\n`,
    );
    const engine = CedarPolicyEngine.load({ dir, precompiledDir: null });
    const at = (seconds: number) => {
      const input = structuredClone(cases[0]!) as { context: { limits: Record<string, number> } };
      input.context.limits.elapsed_seconds = seconds;
      return engine.decideSync(input as PolicyInputData);
    };
    expect(at(4.9).outcome).not.toBe('deny');
    expect(at(5.1)).toMatchObject({ outcome: 'deny', determining_policies: ['deny_slow_run'] });
  });
});

function inputWith(limits: Record<string, number>) {
  return PolicyInput.parse({
    proposal: {
      agent_id: 'a',
      delegated_user_id: 'd',
      incident_id: 'INC-1',
      tool_name: 't',
      arguments: {},
      evidence_count: 0,
      provider: 'p',
      model: 'm',
    },
    context: {
      incident_id: 'INC-1',
      authority_level: 'L3',
      approved_models: [['p', 'm']],
      tools: {},
      limits: {
        calls_made: 1,
        max_calls: 40,
        cost_used_usd: 0,
        max_cost_usd: 2,
        elapsed_seconds: 0,
        max_elapsed_seconds: 300,
        ...limits,
      },
      protected_assets: {},
    },
  });
}

// Keep the names in step with the schema: a renamed counter would silently stop being recognised.
it('names counters and maxima the bundled schema declares', () => {
  const schema = readFileSync(join(BUNDLED_POLICY_DIR, 'schema.cedarschema'), 'utf8');
  for (const [counter, maximum] of Object.entries(LIMIT_MAXIMUMS)) {
    expect(schema).toMatch(new RegExp(`\\b${counter}: Long`));
    expect(schema).toMatch(new RegExp(`\\b${maximum}: Long`));
  }
});
