import type { ToolRegistryEntry } from '../contracts/models.js';
import { TOOL_DEFINITIONS } from '../contracts/tools.js';

/**
 * The gateway's tool registry, derived from the tool catalogue contract: each tool's risk tier and the only argument
 * keys it accepts. This is configuration, never model output. `incident_id` is deliberately not an allowed argument
 * anywhere: the executor binds the incident from the verified grant, so smuggling one is an
 * `argument_schema_violation`.
 */
export const DEFAULT_TOOL_REGISTRY: Readonly<Record<string, ToolRegistryEntry>> = Object.freeze(
  Object.fromEntries(
    TOOL_DEFINITIONS.map((tool) => [
      tool.name,
      Object.freeze({
        risk_tier: tool.riskTier,
        allowed_arguments: Object.freeze(tool.params.map((param) => param.name)),
      }),
    ]),
  ),
);

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
