import type { ToolRegistryEntry } from '../contracts/models.js';

/**
 * The gateway's tool registry: each tool's risk tier and the only argument keys it accepts. This is configuration,
 * never model output. `incident_id` is deliberately not an allowed argument anywhere: the executor binds the incident
 * from the verified grant, so smuggling one is an `argument_schema_violation`.
 */
export const DEFAULT_TOOL_REGISTRY: Readonly<Record<string, ToolRegistryEntry>> = Object.freeze({
  search_siem_events: entry('read_only', ['query']),
  get_identity_profile: entry('read_only', ['user_id']),
  get_authentication_history: entry('read_only', ['user_id', 'limit']),
  get_endpoint_status: entry('read_only', ['endpoint_id']),
  lookup_indicator: entry('read_only', ['indicator']),
  create_incident: entry('low', ['title', 'severity']),
  revoke_sessions: entry('low', ['user_id']),
  disable_account: entry('high', ['user_id']),
  isolate_endpoint: entry('high', ['endpoint_id']),
  block_indicator: entry('high', ['indicator']),
});

function entry(risk_tier: ToolRegistryEntry['risk_tier'], allowed_arguments: string[]): ToolRegistryEntry {
  return Object.freeze({ risk_tier, allowed_arguments: Object.freeze(allowed_arguments) });
}

/** The registry entry of `tool`, or undefined for a tool the registry does not know (own keys only). */
export function lookupTool(
  registry: Readonly<Record<string, ToolRegistryEntry>>,
  tool: string,
): ToolRegistryEntry | undefined {
  return Object.hasOwn(registry, tool) ? registry[tool] : undefined;
}

/** True when `tool` is registered with a tier other than read_only. Unknown tools are not state-changing. */
export function isStateChanging(registry: Readonly<Record<string, ToolRegistryEntry>>, tool: string): boolean {
  const found = lookupTool(registry, tool);
  return found !== undefined && found.risk_tier !== 'read_only';
}
