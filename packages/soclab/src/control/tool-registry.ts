/**
 * Tool-registry lookups for the gateway. The default registry (risk tier and allowed argument keys per tool) is
 * `DEFAULT_TOOL_REGISTRY` in the tool catalogue contract; `incident_id` is never an allowed argument, so smuggling
 * one is an `argument_schema_violation`.
 */
import type { ToolRegistryEntry } from '../contracts/policy-input.js';

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
