import type { AuthorityLevel } from '../../contracts/enums.js';
import type { PolicyInput } from './input.js';

/** Cedar's JSON value form (the subset the lab produces). */
export type CedarValue = boolean | number | string | CedarValue[] | { [key: string]: CedarValue };

export interface CedarEntityUid {
  type: string;
  id: string;
}

/** One Cedar authorization request in JSON form, built from a policy input document. */
export interface CedarRequest {
  principal: CedarEntityUid;
  action: CedarEntityUid;
  resource: CedarEntityUid;
  context: Record<string, CedarValue>;
  entities: { uid: CedarEntityUid; attrs: Record<string, CedarValue>; parents: CedarEntityUid[] }[];
}

export const CEDAR_NAMESPACE = 'SocLab';
export const CEDAR_ACTION = 'invoke_tool';

const AUTHORITY_RANK: Readonly<Record<AuthorityLevel, number>> = { L1: 1, L2: 2, L3: 3, L4: 4, L5: 5 };

/** Printable ASCII is 0x20..0x7E; anything else (lookalike letters, control characters, emoji) fails it. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** An address block written as `<address>/<n>`, tolerating surrounding spaces: `10.0.0.0/0`, ` ::/0 `. */
const CIDR_SUFFIX = /^\s*[0-9a-f.:]*\s*\/\s*(\d+)\s*$/i;

/** Facts about argument values that Cedar cannot compute itself (it has no string length or regex). */
export interface ArgumentFacts {
  keys: string[];
  all_scalar: boolean;
  max_string_length: number;
  all_printable_ascii: boolean;
}

/** Derive the argument facts. Objects and arrays are not scalar; strings are measured in UTF-16 code units. */
export function argumentFacts(args: Readonly<Record<string, unknown>>): ArgumentFacts {
  let allScalar = true;
  let maxLength = 0;
  let printable = true;
  for (const value of Object.values(args)) {
    if (value !== null && typeof value === 'object') allScalar = false;
    if (typeof value === 'string') {
      if (value.length > maxLength) maxLength = value.length;
      if (printable && !PRINTABLE_ASCII.test(value)) printable = false;
    }
  }
  return {
    keys: Object.keys(args),
    all_scalar: allScalar,
    max_string_length: maxLength,
    all_printable_ascii: printable,
  };
}

/**
 * Fold an identifier for protected-asset comparison: trim and lower-case ASCII letters only. Non-ASCII characters
 * are kept as they are (a lookalike id is caught by the non-ASCII rule, not by pretending it matches).
 */
export function foldAssetId(value: string): string {
  return value.trim().replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** The prefix length of an indicator written as an address block, or undefined. */
export function cidrPrefix(indicator: string): number | undefined {
  const match = CIDR_SUFFIX.exec(indicator);
  if (!match || !/[0-9:]/.test(indicator.split('/')[0] ?? '')) return undefined;
  // Leading zeros and huge values are still prefix lengths; clamp so Cedar's Long always holds the value.
  return Math.min(Number.parseInt(match[1] ?? '', 10), 1024);
}

function target(args: Readonly<Record<string, unknown>>): Record<string, CedarValue> {
  const out: Record<string, CedarValue> = {};
  for (const key of ['user_id', 'endpoint_id', 'indicator'] as const) {
    const value = Object.hasOwn(args, key) ? args[key] : undefined;
    if (typeof value !== 'string') continue;
    out[key] = value;
    out[`${key}_folded`] = foldAssetId(value);
  }
  const indicator = out.indicator;
  if (typeof indicator === 'string') {
    const prefix = cidrPrefix(indicator);
    if (prefix !== undefined) out.indicator_cidr_prefix = prefix;
  }
  return out;
}

/** Whole, non-negative integer for a Cedar Long (money and time are scaled before this). */
function toLong(value: number, field: string): number {
  const rounded = Math.round(value);
  if (!Number.isSafeInteger(rounded) || rounded < 0) throw new RangeError(`${field} is out of range: ${value}`);
  return rounded;
}

/**
 * Build the Cedar request for a policy input. The resource is the tool; a tool outside the registry is described
 * as unregistered with tier `high` so the policy can deny it by name. Throws RangeError on values Cedar cannot hold.
 */
export function toCedarRequest(input: PolicyInput): CedarRequest {
  const { proposal, context } = input;
  const tool = Object.hasOwn(context.tools, proposal.tool_name) ? context.tools[proposal.tool_name] : undefined;
  const toolUid = { type: `${CEDAR_NAMESPACE}::Tool`, id: proposal.tool_name };
  const assets: Record<string, CedarValue> = {};
  for (const key of ['user_ids', 'endpoint_ids', 'indicators'] as const) {
    const list = context.protected_assets[key];
    if (list !== undefined) assets[key] = [...new Set(list.map(foldAssetId))];
  }
  const limits = context.limits;
  return {
    principal: { type: `${CEDAR_NAMESPACE}::Agent`, id: proposal.agent_id },
    action: { type: `${CEDAR_NAMESPACE}::Action`, id: CEDAR_ACTION },
    resource: toolUid,
    entities: [
      {
        uid: toolUid,
        attrs: {
          registered: tool !== undefined,
          risk_tier: tool?.risk_tier ?? 'high',
          allowed_arguments: [...new Set(tool?.allowed_arguments ?? [])],
        },
        parents: [],
      },
    ],
    context: {
      proposal: {
        agent_id: proposal.agent_id,
        delegated_user_id: proposal.delegated_user_id,
        incident_id: proposal.incident_id,
        tool_name: proposal.tool_name,
        provider: proposal.provider,
        model: proposal.model,
        evidence_count: toLong(proposal.evidence_count, 'proposal.evidence_count'),
        arguments: { ...argumentFacts(proposal.arguments) },
        target: target(proposal.arguments),
      },
      session: {
        incident_id: context.incident_id,
        authority_level: context.authority_level,
        authority_rank: AUTHORITY_RANK[context.authority_level],
        approved_models: context.approved_models.map(([provider, model]) => ({ provider, model })),
        degraded: context.degraded,
      },
      limits: {
        calls_made: toLong(limits.calls_made, 'limits.calls_made'),
        max_calls: toLong(limits.max_calls, 'limits.max_calls'),
        cost_used_micro_usd: toLong(limits.cost_used_usd * 1e6, 'limits.cost_used_usd'),
        max_cost_micro_usd: toLong(limits.max_cost_usd * 1e6, 'limits.max_cost_usd'),
        elapsed_ms: toLong(limits.elapsed_seconds * 1000, 'limits.elapsed_seconds'),
        max_elapsed_ms: toLong(limits.max_elapsed_seconds * 1000, 'limits.max_elapsed_seconds'),
      },
      approval: { present: context.approval.present, valid: context.approval.valid },
      protected_assets: assets,
    },
  };
}
