/**
 * A checked fast path for the policy input document the gateway builds on every decision. Parsing it with zod costs
 * a fresh process ~15 ms of cold schema code per demo (the whole tool registry, every time); the values were built
 * by the lab from configuration that was already validated. `fastPolicyInput` checks explicitly what `PolicyInput`
 * checks and, when every check holds, returns exactly what zod's parse returns (same fields and key order, the same
 * objects frozen, defaults for `approval` and `degraded`); when anything is unusual it returns undefined and the
 * engine parses with zod, so invalid input gets zod's error unchanged.
 *
 * Only documents marked by the gateway (`markGatewayPolicyInput`) take this path: a document from outside (the
 * policy test tables, a library caller) is a trust boundary and is always parsed by zod.
 * test/unit/control/policy/fast-input.test.ts holds it to the schema with property tests.
 */

import { AuthorityLevel as AuthorityLevelSchema } from '../../contracts/enums.js';
import { count, nonEmpty, RISK_TIERS } from '../../contracts/fast-parse.js';
import type { PolicyInput, PolicyInputData } from './input.js';

const AUTHORITY_LEVELS: ReadonlySet<unknown> = new Set(AuthorityLevelSchema.options);

const gatewayInputs = new WeakSet<object>();

/** Mark a policy input document the gateway built itself, so the engine may check it on the fast path. */
export function markGatewayPolicyInput<T extends PolicyInputData>(input: T): T {
  gatewayInputs.add(input);
  return input;
}

/** True when `input` was marked by `markGatewayPolicyInput`. */
export const isGatewayPolicyInput = (input: unknown): boolean =>
  typeof input === 'object' && input !== null && gatewayInputs.has(input);

type Plain = Record<string, unknown>;

/**
 * The own keys of a plain data object (prototype Object.prototype or null; only enumerable string keys; no
 * `__proto__` or `constructor` key, which zod treats specially), or undefined.
 */
function plainKeys(value: unknown): string[] | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const keys = Object.keys(value);
  for (const key of keys) if (key === '__proto__' || key === 'constructor') return undefined;
  return Reflect.ownKeys(value).length === keys.length ? keys : undefined;
}

/**
 * The keys of a record's input for `z.record(z.string(), ...)` (zod copies the enumerable own string keys, skips
 * non-enumerable ones and fails on symbol keys), or undefined for anything unusual: not a plain object, a symbol key,
 * or a `__proto__` or `constructor` key (zod skips the one and reads the other to decide whether it is plain).
 */
function recordKeys(value: unknown): string[] | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return undefined;
  if (Object.hasOwn(value, 'constructor') || Object.hasOwn(value, '__proto__')) return undefined;
  if (Object.getOwnPropertySymbols(value).length > 0) return undefined;
  return Object.keys(value);
}

/**
 * True for a plain object whose enumerable keys are all among `a` and `b`: enough for a strict object whose fields
 * are all required and all checked afterwards (a missing one reads as undefined and fails its check, as in zod,
 * and zod's strict check walks enumerable keys only).
 */
function onlyKeys(value: unknown, a: string, b: string): value is Plain {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key of Object.keys(value)) if (key !== a && key !== b) return false;
  return true;
}

/**
 * True when Object.prototype has no enumerable key: zod's strict objects walk inherited enumerable keys too (and
 * reject them), so the fast path, which reads own keys only, holds only while there are none.
 */
function prototypeClean(): boolean {
  for (const _ in Object.prototype) return false;
  return true;
}

/** True when every key is one of `allowed` and `required` are all present with a defined value. */
function shapeHolds(value: Plain, keys: readonly string[], allowed: ReadonlySet<string>, required: readonly string[]) {
  for (const key of keys) if (!allowed.has(key) || value[key] === undefined) return false;
  for (const key of required) if (!Object.hasOwn(value, key)) return false;
  return true;
}

/** `z.string().min(1)`. */
const filled = (value: unknown): value is string => typeof value === 'string' && value.length >= 1;

/** A finite number (`z.number()`). */
const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** `z.array(z.string())`: a new array, or undefined (also for holes, which zod reads as undefined). */
function strings(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: string[] = [];
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (typeof item !== 'string') return undefined;
    out.push(item);
  }
  return out;
}

const PROPOSAL_KEYS = [
  'agent_id',
  'delegated_user_id',
  'incident_id',
  'tool_name',
  'arguments',
  'evidence_count',
  'provider',
  'model',
] as const;
const PROPOSAL_KEY_SET: ReadonlySet<string> = new Set(PROPOSAL_KEYS);

function proposalOf(value: unknown): PolicyInput['proposal'] | undefined {
  const keys = plainKeys(value);
  if (keys === undefined) return undefined;
  const p = value as Plain;
  if (!shapeHolds(p, keys, PROPOSAL_KEY_SET, PROPOSAL_KEYS)) return undefined;
  const { agent_id, delegated_user_id, incident_id, tool_name, evidence_count, provider, model } = p;
  if (!filled(agent_id) || !filled(delegated_user_id) || !filled(incident_id) || !filled(tool_name)) return undefined;
  if (!count(evidence_count) || !filled(provider) || !filled(model)) return undefined;
  // `z.record(z.string(), z.unknown())`: a new object with the same keys and the very same values.
  const argKeys = recordKeys(p.arguments);
  if (argKeys === undefined) return undefined;
  const source = p.arguments as Plain;
  const args: Plain = {};
  for (const key of argKeys) args[key] = source[key];
  return {
    agent_id,
    delegated_user_id,
    incident_id,
    tool_name,
    arguments: args,
    evidence_count,
    provider,
    model,
  };
}

function toolsOf(value: unknown): PolicyInput['context']['tools'] | undefined {
  const names = recordKeys(value);
  if (names === undefined) return undefined;
  const out: PolicyInput['context']['tools'] = {};
  for (const name of names) {
    const entry = (value as Plain)[name];
    if (!onlyKeys(entry, 'risk_tier', 'allowed_arguments')) return undefined;
    const { risk_tier } = entry;
    const allowed = strings(entry.allowed_arguments);
    if (!RISK_TIERS.has(risk_tier) || allowed === undefined) return undefined;
    out[name] = {
      risk_tier: risk_tier as PolicyInput['context']['tools'][string]['risk_tier'],
      allowed_arguments: allowed,
    };
  }
  return out;
}

/** `z.array(ApprovedModel)`: a new array of frozen, trimmed pairs. */
function approvedModelsOf(value: unknown): PolicyInput['context']['approved_models'] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: PolicyInput['context']['approved_models'] = [];
  for (let i = 0; i < value.length; i++) {
    const pair: unknown = value[i];
    if (!Array.isArray(pair) || pair.length !== 2) return undefined;
    const provider = nonEmpty(pair[0]);
    const model = nonEmpty(pair[1]);
    if (provider === undefined || model === undefined) return undefined;
    out.push(Object.freeze([provider, model] as const));
  }
  return out;
}

const LIMIT_KEYS = [
  'calls_made',
  'max_calls',
  'cost_used_usd',
  'max_cost_usd',
  'elapsed_seconds',
  'max_elapsed_seconds',
] as const;
const LIMIT_KEY_SET: ReadonlySet<string> = new Set(LIMIT_KEYS);

/** `LimitContext` (a frozen copy). */
function limitsOf(value: unknown): PolicyInput['context']['limits'] | undefined {
  const keys = plainKeys(value);
  if (keys === undefined || !shapeHolds(value as Plain, keys, LIMIT_KEY_SET, LIMIT_KEYS)) return undefined;
  const { calls_made, max_calls, cost_used_usd, max_cost_usd, elapsed_seconds, max_elapsed_seconds } = value as Plain;
  if (!count(calls_made) || !count(max_calls) || max_calls <= 0) return undefined;
  if (!finite(cost_used_usd) || cost_used_usd < 0 || !finite(max_cost_usd) || max_cost_usd <= 0) return undefined;
  if (!finite(elapsed_seconds) || elapsed_seconds < 0) return undefined;
  if (!finite(max_elapsed_seconds) || max_elapsed_seconds <= 0) return undefined;
  return Object.freeze({
    calls_made,
    max_calls,
    cost_used_usd,
    max_cost_usd,
    elapsed_seconds,
    max_elapsed_seconds,
  });
}

const APPROVAL_KEY_SET: ReadonlySet<string> = new Set(['present', 'valid']);

/** `ApprovalContext.default(...)`: absent gives the default (a plain object), present a frozen copy. */
function approvalOf(context: Plain): PolicyInput['context']['approval'] | undefined {
  if (!Object.hasOwn(context, 'approval')) return { present: false, valid: false };
  const value = context.approval;
  const keys = plainKeys(value);
  if (keys === undefined || !shapeHolds(value as Plain, keys, APPROVAL_KEY_SET, [])) return undefined;
  const present = (value as Plain).present ?? false;
  const valid = (value as Plain).valid ?? false;
  if (typeof present !== 'boolean' || typeof valid !== 'boolean') return undefined;
  return Object.freeze({ present, valid });
}

const ASSET_KEYS = ['user_ids', 'endpoint_ids', 'indicators'] as const;
const ASSET_KEY_SET: ReadonlySet<string> = new Set(ASSET_KEYS);

/** `DeclaredProtectedAssets`: each list optional (an absent list stays absent), in the schema's key order. */
function protectedAssetsOf(value: unknown): PolicyInput['context']['protected_assets'] | undefined {
  const keys = plainKeys(value);
  if (keys === undefined || !shapeHolds(value as Plain, keys, ASSET_KEY_SET, [])) return undefined;
  const out: PolicyInput['context']['protected_assets'] = {};
  for (const key of ASSET_KEYS) {
    if (!Object.hasOwn(value as Plain, key)) continue;
    const list = strings((value as Plain)[key]);
    if (list === undefined) return undefined;
    out[key] = list;
  }
  return out;
}

const CONTEXT_KEYS = [
  'incident_id',
  'authority_level',
  'approved_models',
  'tools',
  'limits',
  'approval',
  'protected_assets',
  'degraded',
] as const;
const CONTEXT_REQUIRED = [
  'incident_id',
  'authority_level',
  'approved_models',
  'tools',
  'limits',
  'protected_assets',
] as const;
const CONTEXT_KEY_SET: ReadonlySet<string> = new Set(CONTEXT_KEYS);

function contextOf(value: unknown): PolicyInput['context'] | undefined {
  const keys = plainKeys(value);
  if (keys === undefined) return undefined;
  const c = value as Plain;
  if (!shapeHolds(c, keys, CONTEXT_KEY_SET, CONTEXT_REQUIRED)) return undefined;
  const { incident_id, authority_level } = c;
  if (!filled(incident_id) || !AUTHORITY_LEVELS.has(authority_level)) return undefined;
  const approved_models = approvedModelsOf(c.approved_models);
  const tools = toolsOf(c.tools);
  const limits = limitsOf(c.limits);
  const approval = approvalOf(c);
  const protected_assets = protectedAssetsOf(c.protected_assets);
  const degraded = c.degraded ?? false;
  if (approved_models === undefined || tools === undefined || limits === undefined || approval === undefined)
    return undefined;
  if (protected_assets === undefined || typeof degraded !== 'boolean') return undefined;
  return {
    incident_id,
    authority_level: authority_level as PolicyInput['context']['authority_level'],
    approved_models,
    tools,
    limits,
    approval,
    protected_assets,
    degraded,
  };
}

const INPUT_KEYS = ['proposal', 'context'] as const;
const INPUT_KEY_SET: ReadonlySet<string> = new Set(INPUT_KEYS);

/** `PolicyInput.parse(input)` for a well-formed document, or undefined (then parse with zod). */
export function fastPolicyInput(input: unknown): PolicyInput | undefined {
  if (!prototypeClean()) return undefined;
  const keys = plainKeys(input);
  if (keys === undefined || !shapeHolds(input as Plain, keys, INPUT_KEY_SET, INPUT_KEYS)) return undefined;
  const proposal = proposalOf((input as Plain).proposal);
  if (proposal === undefined) return undefined;
  const context = contextOf((input as Plain).context);
  return context === undefined ? undefined : { proposal, context };
}
