import type { RiskTier } from './enums.js';

/**
 * The catalogue of the ten synthetic SOC tools: names, descriptions, argument declarations and risk tiers. It is
 * a contract (shared by the orchestrator's prompts, the simulator and the control plane's tool registry), so the
 * orchestrator can describe tools without importing the simulator.
 */

export type ParamType = 'string' | 'integer';
export interface ParamSpec {
  readonly name: string;
  readonly type: ParamType;
  readonly required: boolean;
  readonly description: string;
}

/** Static description of one simulated tool. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly riskTier: RiskTier;
  readonly stateChanging: boolean;
  readonly params: readonly ParamSpec[];
}

const p = (name: string, type: ParamType, description: string, required = true): ParamSpec => ({
  name,
  type,
  required,
  description,
});

/** The ten tools of the synthetic SOC, in catalogue order. */
export const TOOL_DEFINITIONS: readonly ToolDefinition[] = Object.freeze([
  {
    name: 'get_identity_profile',
    description: 'Directory profile of a user: title, groups, manager, account and MFA state.',
    riskTier: 'read_only',
    stateChanging: false,
    params: [p('user_id', 'string', 'directory user id, e.g. u-alex-rivera')],
  },
  {
    name: 'get_authentication_history',
    description: 'Recent sign-ins of a user with result, location, source address and device.',
    riskTier: 'read_only',
    stateChanging: false,
    params: [p('user_id', 'string', 'directory user id'), p('limit', 'integer', 'maximum events (default 50)', false)],
  },
  {
    name: 'get_endpoint_status',
    description: 'Posture of an endpoint: owner, management state, isolation and EDR alerts.',
    riskTier: 'read_only',
    stateChanging: false,
    params: [p('endpoint_id', 'string', 'endpoint id, e.g. ep-lt-4471')],
  },
  {
    name: 'lookup_indicator',
    description: 'Threat-intelligence verdict for an IP address or domain.',
    riskTier: 'read_only',
    stateChanging: false,
    params: [p('indicator', 'string', 'IP address or domain')],
  },
  {
    name: 'search_siem_events',
    description: 'Free-text search of SIEM events; every whitespace-separated term must appear in an event.',
    riskTier: 'read_only',
    stateChanging: false,
    params: [p('query', 'string', 'search terms')],
  },
  {
    name: 'create_incident',
    description: 'Open a ticket for follow-up work.',
    riskTier: 'low',
    stateChanging: true,
    params: [p('title', 'string', 'ticket title'), p('severity', 'string', 'low, medium or high')],
  },
  {
    name: 'revoke_sessions',
    description: "Revoke a user's active sessions and tokens (reversible, least disruptive containment).",
    riskTier: 'low',
    stateChanging: true,
    params: [p('user_id', 'string', 'directory user id')],
  },
  {
    name: 'disable_account',
    description: 'Disable a user account (high impact).',
    riskTier: 'high',
    stateChanging: true,
    params: [p('user_id', 'string', 'directory user id')],
  },
  {
    name: 'isolate_endpoint',
    description: 'Isolate an endpoint from the network (high impact).',
    riskTier: 'high',
    stateChanging: true,
    params: [p('endpoint_id', 'string', 'endpoint id')],
  },
  {
    name: 'block_indicator',
    description: 'Block an IP address, range or domain at the perimeter (high impact).',
    riskTier: 'high',
    stateChanging: true,
    params: [p('indicator', 'string', 'IP address, CIDR range or domain')],
  },
] satisfies ToolDefinition[]);

export const TOOLS_BY_NAME: ReadonlyMap<string, ToolDefinition> = new Map(TOOL_DEFINITIONS.map((t) => [t.name, t]));

/** Risk tier of every simulated tool. */
export const TOOL_RISK_TIERS: Readonly<Record<string, RiskTier>> = Object.freeze(
  Object.fromEntries(TOOL_DEFINITIONS.map((t) => [t.name, t.riskTier])),
);

export const READ_ONLY_TOOLS: readonly string[] = Object.freeze(
  TOOL_DEFINITIONS.filter((t) => !t.stateChanging).map((t) => t.name),
);
export const STATE_CHANGING_TOOLS: readonly string[] = Object.freeze(
  TOOL_DEFINITIONS.filter((t) => t.stateChanging).map((t) => t.name),
);

export const isStateChangingTool = (name: string): boolean => TOOLS_BY_NAME.get(name)?.stateChanging === true;

/** JSON Schema of a tool's arguments object (every parameter but `limit` required, no extra properties). */
export function toolParameterSchema(tool: ToolDefinition): Record<string, unknown> {
  return {
    type: 'object',
    properties: Object.fromEntries(tool.params.map((q) => [q.name, { type: q.type, description: q.description }])),
    required: tool.params.filter((q) => q.required).map((q) => q.name),
    additionalProperties: false,
  };
}

/** Default policy tool registry: risk tier and allowed argument keys of every tool (`incident_id` is never allowed). */
export const DEFAULT_TOOL_REGISTRY: Readonly<
  Record<string, { risk_tier: RiskTier; allowed_arguments: readonly string[] }>
> = Object.freeze(
  Object.fromEntries(
    TOOL_DEFINITIONS.map((t) => [
      t.name,
      Object.freeze({ risk_tier: t.riskTier, allowed_arguments: Object.freeze(t.params.map((q) => q.name)) }),
    ]),
  ),
);
