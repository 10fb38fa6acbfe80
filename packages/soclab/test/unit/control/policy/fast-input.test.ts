import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CedarPolicyEngine } from '../../../../src/control/policy/cedar-engine.js';
import type { EngineDecision, PolicyEngine } from '../../../../src/control/policy/engine.js';
import {
  fastPolicyInput,
  isGatewayPolicyInput,
  markGatewayPolicyInput,
} from '../../../../src/control/policy/fast-input.js';
import { PolicyInput, type PolicyInputData } from '../../../../src/control/policy/input.js';
import { bundledEngine, controlPlane, makeProposal } from '../../../helpers/control.js';

/**
 * The policy input fast path against its zod schema: `fastPolicyInput(x) ?? PolicyInput.parse(x)` must give what
 * `PolicyInput.parse(x)` gives (value, key order, frozen objects, defaults) or the same error, for valid, near-miss
 * and hostile documents; the gateway's own documents must take it, and nothing else may.
 */

/** Value, key order, frozen-ness, prototype and -0 of everything reachable: what a caller could notice. */
function snapshot(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) {
    if (value === undefined) return '<undefined>';
    if (Object.is(value, -0)) return '<-0>';
    if (typeof value === 'number' && !Number.isFinite(value)) return `<${value}>`;
    if (typeof value === 'function') return '<function>';
    return value;
  }
  return {
    frozen: Object.isFrozen(value),
    array: Array.isArray(value),
    proto: Object.getPrototypeOf(value) === Object.prototype ? 'object' : Array.isArray(value) ? 'array' : 'other',
    entries: Reflect.ownKeys(value).map((k) => [String(k), snapshot((value as Record<PropertyKey, unknown>)[k])]),
  };
}

function outcome(fn: () => unknown): unknown {
  try {
    return { ok: snapshot(fn()) };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

/** Asserts the combined path equals zod's; returns true when the fast path answered. */
function holds(input: unknown): boolean {
  let hit = false;
  const combined = outcome(() => {
    const value = fastPolicyInput(input);
    hit = value !== undefined;
    return value ?? PolicyInput.parse(input);
  });
  expect(combined).toEqual(outcome(() => PolicyInput.parse(input)));
  if (hit) {
    // The very same argument values (z.unknown passes them through), in new containers.
    const fast = fastPolicyInput(input) as PolicyInput;
    const given = (input as { proposal: { arguments: Record<string, unknown> } }).proposal.arguments;
    for (const [k, v] of Object.entries(fast.proposal.arguments)) expect(v).toBe(given[k]);
    expect(fast.proposal.arguments).not.toBe(given);
  }
  return hit;
}

/** What the gateway builds for a proposal (the shape of `ControlGateway#policyInput`). */
function gatewayDocument(): Record<string, unknown> {
  return {
    proposal: {
      agent_id: 'soc-investigator',
      delegated_user_id: 'analyst-1',
      incident_id: 'INC-1001',
      tool_name: 'disable_account',
      arguments: { user_id: 'u-alex-rivera', reason: 'compromised' },
      evidence_count: 3,
      provider: 'mock',
      model: 'mock-investigator-v1',
    },
    context: {
      incident_id: 'INC-1001',
      authority_level: 'L3',
      approved_models: [['mock', 'mock-investigator-v1']],
      tools: {
        search_siem_events: { risk_tier: 'read_only', allowed_arguments: ['query', 'limit'] },
        disable_account: { risk_tier: 'high', allowed_arguments: ['user_id', 'reason'] },
      },
      limits: {
        calls_made: 4,
        max_calls: 25,
        cost_used_usd: 0.25,
        max_cost_usd: 2,
        elapsed_seconds: 1.5,
        max_elapsed_seconds: 300,
      },
      approval: { present: false, valid: false },
      protected_assets: { user_ids: ['u-ceo'], endpoint_ids: [], indicators: ['10.0.0.1'] },
      degraded: false,
    },
  };
}

const protoKey = (value: unknown): Record<string, unknown> => JSON.parse(`{"__proto__": ${JSON.stringify(value)}}`);

/** Values that are wrong, nearly right or hostile for some field. */
const odd = fc.constantFrom<unknown>(
  undefined,
  null,
  '',
  ' ',
  ' mock ',
  'x',
  'L6',
  'HIGH',
  'read_only',
  0,
  -0,
  -1,
  1.5,
  2 ** 53,
  2 ** 53 - 1,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  false,
  [],
  [''],
  ['a', 1],
  [' mock ', ' m '],
  ['mock'],
  ['mock', 'm', 'extra'],
  // biome-ignore lint/suspicious/noSparseArray: a hole is what is tested
  [, 'm'],
  {},
  { risk_tier: 'low', allowed_arguments: [] },
  { risk_tier: 'low', allowed_arguments: ['a'], extra: 1 },
  { present: true },
  { present: 'yes' },
  { user_ids: ['a'] },
  { user_ids: undefined },
  protoKey({ x: 1 }),
  protoKey({ risk_tier: 'low', allowed_arguments: [] }),
  { constructor: { risk_tier: 'low', allowed_arguments: [] } },
  { constructor: () => 1 },
  { toString: 'x' },
  Object.assign(Object.create(null), { a: 1 }),
  { [Symbol('s')]: 1, a: 2 },
  Object.defineProperty({ a: 1 }, 'hidden', { value: 2, enumerable: false }),
  new Date(0),
  new (class Thing {
    a = 1;
  })(),
  Object.create({ inherited: 1 }),
);

type Path = readonly string[];
/** Every path into the gateway document, so a mutation can land anywhere. */
function pathsOf(value: unknown, prefix: Path = []): Path[] {
  if (typeof value !== 'object' || value === null) return [prefix];
  const out: Path[] = [prefix];
  for (const key of Object.keys(value)) out.push(...pathsOf((value as Record<string, unknown>)[key], [...prefix, key]));
  return out;
}
const PATHS = pathsOf(gatewayDocument()).filter((p) => p.length > 0);

type Mutation = { path: Path; op: 'set' | 'delete' | 'extra' | 'protoKey' | 'ctorKey'; value: unknown };
const mutation = fc.record({
  path: fc.constantFrom(...PATHS),
  op: fc.constantFrom<Mutation['op']>('set', 'set', 'set', 'delete', 'extra', 'protoKey', 'ctorKey'),
  value: fc.oneof(odd, fc.string({ maxLength: 4 }), fc.integer({ min: -3, max: 30 }), fc.double()),
});

function mutate(doc: Record<string, unknown>, { path, op, value }: Mutation): void {
  let node = doc as Record<string, unknown>;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null) return;
    node = next as Record<string, unknown>;
  }
  const last = path[path.length - 1] as string;
  if (op === 'set') node[last] = value;
  else if (op === 'delete') delete node[last];
  else {
    const target = node[last];
    if (typeof target !== 'object' || target === null) return;
    if (op === 'extra') (target as Record<string, unknown>).surprise = value;
    else if (op === 'ctorKey')
      Object.defineProperty(target, 'constructor', { value, enumerable: true, configurable: true, writable: true });
    else Object.defineProperty(target, '__proto__', { value, enumerable: true, configurable: true, writable: true });
  }
}

const modelName = fc.stringMatching(/^\s?[a-z0-9.:-]{1,8}\s?$/);

/** Valid documents of other shapes: registry size, argument values, optional fields absent, padded model names. */
const variedDocument = fc
  .record({
    args: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
    tools: fc.dictionary(
      fc.string({ maxLength: 12 }),
      fc.record({
        risk_tier: fc.constantFrom('read_only', 'low', 'high'),
        allowed_arguments: fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
      }),
      { maxKeys: 12 },
    ),
    models: fc.array(fc.tuple(modelName, modelName), { maxLength: 3 }),
    count: fc.oneof(fc.nat(10), fc.constantFrom(-0)),
    dropApproval: fc.boolean(),
    dropDegraded: fc.boolean(),
    approval: fc.record({ present: fc.boolean(), valid: fc.boolean() }, { requiredKeys: [] }),
    assets: fc.record(
      { user_ids: fc.array(fc.string({ maxLength: 3 })), indicators: fc.array(fc.string({ maxLength: 3 })) },
      { requiredKeys: [] },
    ),
    degraded: fc.boolean(),
    level: fc.constantFrom('L1', 'L2', 'L3', 'L4', 'L5'),
  })
  .map((v) => {
    const doc = gatewayDocument() as { proposal: Record<string, unknown>; context: Record<string, unknown> };
    doc.proposal.arguments = v.args;
    doc.proposal.evidence_count = v.count;
    doc.context.tools = v.tools;
    doc.context.approved_models = v.models;
    doc.context.authority_level = v.level;
    doc.context.approval = v.approval;
    doc.context.protected_assets = v.assets;
    doc.context.degraded = v.degraded;
    if (v.dropApproval) delete doc.context.approval;
    if (v.dropDegraded) delete doc.context.degraded;
    return doc;
  });

const RUNS = { seed: 22, numRuns: 400 };

describe('policy input fast path equals PolicyInput', () => {
  it('takes the gateway document as it is, with the value zod gives', () => {
    expect(holds(gatewayDocument())).toBe(true);
  });

  it('degenerate documents fall back to zod and get its error', () => {
    for (const input of [undefined, null, 0, 'x', [], {}, { proposal: {} }, { context: {} }])
      expect(holds(input)).toBe(false);
  });

  it('applies the defaults of approval and degraded, and keeps absent protected-asset lists absent', () => {
    const doc = gatewayDocument() as { context: Record<string, unknown> };
    delete doc.context.approval;
    delete doc.context.degraded;
    doc.context.protected_assets = {};
    expect(holds(doc)).toBe(true);
    const fast = fastPolicyInput(doc);
    expect(fast?.context.approval).toEqual({ present: false, valid: false });
    expect(fast?.context.degraded).toBe(false);
    expect(fast?.context.protected_assets).toEqual({});
  });

  it('valid documents of many shapes take the fast path with zod’s value', () => {
    let hits = 0;
    fc.assert(
      fc.property(variedDocument, (doc) => {
        if (holds(doc)) hits += 1;
      }),
      RUNS,
    );
    // Only argument or tool keys zod treats specially (`__proto__`, `constructor`) may leave the fast path.
    expect(hits).toBeGreaterThan(RUNS.numRuns * 0.9);
  });

  it('near-miss and hostile documents (one to three mutations anywhere) give zod’s value or error', () => {
    let fallbacks = 0;
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (mutations) => {
        const doc = gatewayDocument();
        for (const m of mutations) mutate(doc, m);
        if (!holds(doc)) fallbacks += 1;
      }),
      { seed: 22, numRuns: 600 },
    );
    expect(fallbacks).toBeGreaterThan(100);
  });

  it('prototype keys in tools and arguments never reach the output as prototypes', () => {
    const doc = gatewayDocument() as { proposal: Record<string, unknown>; context: Record<string, unknown> };
    doc.proposal.arguments = JSON.parse('{"__proto__": {"polluted": true}, "user_id": "u"}');
    expect(holds(doc)).toBe(false);
    doc.proposal.arguments = { user_id: 'u' };
    doc.context.tools = JSON.parse('{"__proto__": {"risk_tier": "low", "allowed_arguments": []}}');
    expect(holds(doc)).toBe(false);
    const parsed = PolicyInput.parse(doc);
    expect(Object.getPrototypeOf(parsed.context.tools)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
  it('an enumerable key inherited from a polluted Object.prototype leaves the fast path (zod rejects it)', () => {
    Object.defineProperty(Object.prototype, 'polluted_key', {
      value: 1,
      enumerable: true,
      configurable: true,
      writable: true,
    });
    try {
      expect(holds(gatewayDocument())).toBe(false);
      expect(() => PolicyInput.parse(gatewayDocument())).toThrow(/polluted_key/);
    } finally {
      delete (Object.prototype as Record<string, unknown>).polluted_key;
    }
    expect(holds(gatewayDocument())).toBe(true);
  });
});

describe('who takes the fast path', () => {
  it('every document the gateway hands the engine is marked and takes the fast path', async () => {
    const engine = bundledEngine();
    const seen: boolean[] = [];
    const watching: PolicyEngine = {
      version: engine.version,
      digest: engine.digest,
      decide(input): Promise<EngineDecision> {
        seen.push(isGatewayPolicyInput(input) && fastPolicyInput(input) !== undefined);
        return engine.decide(input);
      },
    };
    const plane = controlPlane({ engine: watching });
    await plane.gateway.propose(makeProposal('search_siem_events', { query: 'user:alex' }, { evidence: 1 }));
    await plane.gateway.propose(makeProposal('disable_account', { user_id: 'u-alex-rivera' }, { evidence: 3 }));
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.every(Boolean)).toBe(true);
    // The gateway's public `policyInput` does not hand out marked documents.
    const input = plane.gateway.policyInput(makeProposal('search_siem_events', { query: 'x' }));
    expect(isGatewayPolicyInput(input)).toBe(false);
  });

  it('the engine decides a marked document as it decides the same unmarked one, and rejects bad ones alike', async () => {
    const engine = CedarPolicyEngine.load({ dir: undefined });
    const good = gatewayDocument() as unknown as PolicyInputData;
    const marked = markGatewayPolicyInput(structuredClone(good));
    expect(await engine.decide(marked)).toEqual(await engine.decide(good));
    const bad = gatewayDocument() as { proposal: Record<string, unknown> };
    bad.proposal.evidence_count = -1;
    bad.proposal.surprise = 'x';
    const unmarkedError = await engine.decide(bad as unknown as PolicyInputData).catch((e: Error) => e.message);
    const markedError = await engine
      .decide(markGatewayPolicyInput(structuredClone(bad) as unknown as PolicyInputData))
      .catch((e: Error) => e.message);
    expect(unmarkedError).toMatch(/^invalid policy input: .*evidence_count/);
    expect(markedError).toBe(unmarkedError);
  });

  it('an unmarked document is always parsed by zod, even a well-formed one', () => {
    expect(isGatewayPolicyInput(gatewayDocument())).toBe(false);
    expect(isGatewayPolicyInput(null)).toBe(false);
  });
});
