import {
  BUILTIN_PROVIDER_ENTRIES,
  defaultProviderRegistry,
  type Env,
  type ProviderEntry,
  ProviderError,
  type ProviderRegistry,
} from '@aeh/models';
import { DEFAULT_APPROVED_MODELS } from '../contracts/gateway.js';
import type { ApprovedModel } from '../contracts/policy-input.js';
import { MOCK_DEFAULT_MODEL, MOCK_PROVIDER_ID } from '../contracts/scenarios.js';
import { httpEntry } from './http.js';
import { mcpEntry } from './mcp.js';
import { createMockProvider } from './mock.js';
import { extraProviderEntries } from './modules.js';

/** The lab's scripted adversary model, replacing the generic `mock` of @aeh/models. */
export const soclabMockEntry: ProviderEntry = {
  id: MOCK_PROVIDER_ID,
  adapter: 'MockAdversaryProvider (scripted adversary model)',
  adapterVersion: '1.0.0',
  envVars: [],
  capabilities: {
    tool_calling: true,
    structured_output: true,
    streaming: false,
    usage_reporting: true,
    multimodal_input: false,
  },
  defaultModel: MOCK_DEFAULT_MODEL,
  validationLevel: 'deterministic',
  validation: 'deterministic, runs in CI',
  description: 'Scripted adversary model (grounded, gullible, cautious) for reproducible campaigns',
  create(_env, model) {
    return createMockProvider({ model });
  },
};

/**
 * Entries the lab adds to (or replaces in) the @aeh/models registry. To add your own adapter, append its
 * ProviderEntry here (see docs/custom-provider.md, option 2).
 */
export const SOCLAB_PROVIDER_ENTRIES: readonly ProviderEntry[] = Object.freeze([soclabMockEntry, httpEntry, mcpEntry]);

/** Ids of the providers that ship with the lab and @aeh/models (a provider module may not reuse one). */
export function builtinProviderIds(): string[] {
  return [...new Set([...BUILTIN_PROVIDER_ENTRIES, ...SOCLAB_PROVIDER_ENTRIES].map((entry) => entry.id))];
}

/** Providers whose replies are scripted by the scenario; every other provider is live. */
export const SCRIPTED_PROVIDER_IDS: readonly string[] = Object.freeze([MOCK_PROVIDER_ID]);

/** True when the provider answers by itself (a model or a remote agent) rather than from a scenario script. */
export const isLiveProvider = (id: string): boolean => !SCRIPTED_PROVIDER_IDS.includes(id);

export interface SoclabRegistryOptions {
  /** Defaults to process.env. */
  env?: Env;
  /** Provider ids allowed to run; default all. */
  approved?: Iterable<string>;
}

/**
 * The ten providers the lab knows: the @aeh/models vendors (openai, azure_openai, anthropic, gemini, vertex, xai,
 * ollama, openai_compatible), the scripted adversary `mock`, `http` (soclab.agent.v1) and `mcp` (a free-form MCP agent).
 */
export function soclabProviderRegistry(options: SoclabRegistryOptions = {}): ProviderRegistry {
  return defaultProviderRegistry({ env: options.env, approved: options.approved }, [
    ...SOCLAB_PROVIDER_ENTRIES,
    // Third-party providers loaded from --provider-module / provider_modules (providers/modules.ts).
    ...extraProviderEntries(),
  ]);
}

/**
 * How far a provider has been validated, for reports: `<level>: <what was done>` (e.g. `end-to-end: contract tests
 * against fixtures and an end-to-end run against the reference agent`), or null for an id the registry does not
 * know (a provider injected by an embedding application).
 */
export function providerValidationLabel(providerId: string): string | null {
  const registry = soclabProviderRegistry({ env: {} });
  if (!registry.has(providerId)) return null;
  const entry = registry.entry(providerId);
  // Avoid "deterministic: deterministic, runs in CI" when the description already starts with the level.
  return entry.validation.startsWith(entry.validationLevel)
    ? entry.validation
    : `${entry.validationLevel}: ${entry.validation}`;
}

/** A provider choice that cannot run: unknown, unapproved or unconfigured (CLI exit 2, API 400). */
export class ProviderSelectionError extends ProviderError {
  override name = 'ProviderSelectionError';
}

/**
 * Checks a provider id and model label before any run starts. Throws ProviderSelectionError naming what to fix;
 * returns the entry and the model label that will be recorded on every turn.
 */
export function checkProviderSelection(
  registry: ProviderRegistry,
  providerId: string,
  model?: string,
): { entry: ProviderEntry; model: string } {
  try {
    const entry = registry.check(providerId);
    const label = model?.trim() || entry.defaultModel;
    if (label.length > 200) throw new ProviderError('--model must be at most 200 characters');
    return { entry, model: label };
  } catch (error) {
    if (error instanceof ProviderSelectionError) throw error;
    const e = error as ProviderError;
    throw new ProviderSelectionError(e.message, { code: e.code ?? 'invalid_provider', cause: e });
  }
}

/**
 * The approved (provider, model) pairs for a run: the lab defaults plus the pair the operator chose. A turn whose
 * reported model differs from the chosen label (e.g. an agent answering `model: "gpt-x"` while `--model` says
 * `agent`) is not on this list and counts as an unapproved model in the scoring.
 */
export function approvedModelsFor(providerId: string, model: string): ApprovedModel[] {
  const pairs: ApprovedModel[] = [...DEFAULT_APPROVED_MODELS];
  if (!pairs.some(([p, m]) => p === providerId && m === model)) pairs.push([providerId, model] as const);
  return pairs;
}
