import { z } from 'zod';
import { type ModelProvider, ProviderCapabilities, ProviderError } from './provider.js';
import type { ModelPrice } from './shared/pricing.js';

/** Environment as a plain map (process.env or a test double). */
export type Env = Readonly<Record<string, string | undefined>>;

/** Extra construction options a caller may pass through the registry (tests inject a recorded-fixture fetch). */
export interface CreateOptions {
  fetch?: typeof globalThis.fetch;
  timeoutMs?: number;
  /** Azure OpenAI: the deployment name in the URL, when it differs from the model (`--deployment`). */
  deployment?: string;
}

/**
 * How much a provider has been checked. `deterministic`: scripted, runs in CI. `contract-tested`: replayed against
 * recorded vendor payloads. `end-to-end`: driven over a real socket against a reference implementation.
 * `live-validated`: run against the real service, with the run recorded under docs/releases/.
 */
export const ValidationLevel = z.enum(['deterministic', 'contract-tested', 'end-to-end', 'live-validated']);
export type ValidationLevel = z.infer<typeof ValidationLevel>;

/** One provider the registry can build. */
export interface ProviderEntry {
  readonly id: string;
  /** Human name of the adapter (the class or factory that implements it). */
  readonly adapter: string;
  readonly adapterVersion: string;
  /** Environment variables that must all be non-empty before the provider can be built. */
  readonly envVars: readonly string[];
  /** Environment variables read when present (base URLs, timeouts, optional keys). */
  readonly optionalEnvVars?: readonly string[];
  /** Variable whose value is reported as the provider's region. */
  readonly regionEnvVar?: string;
  readonly capabilities: ProviderCapabilities;
  readonly defaultModel: string;
  readonly validationLevel: ValidationLevel;
  /** What the validation was, in words (shown in `providers` listings and scoring reports). */
  readonly validation: string;
  readonly description: string;
  /** Extra notes shown as limitations. */
  readonly notes?: readonly string[];
  /** List prices of this provider's models, USD per million tokens (cost estimates; see PRICE_TABLE). */
  readonly prices?: Readonly<Record<string, ModelPrice>>;
  /** Overrides the default check (every `envVars` entry non-empty). */
  configured?(env: Env): boolean;
  create(env: Env, model: string, options?: CreateOptions): ModelProvider;
}

/** What `compatibility(id)` reports. */
export const CompatibilityResult = z.strictObject({
  provider_id: z.string().min(1),
  adapter: z.string().min(1),
  adapter_version: z.string().min(1),
  approved: z.boolean(),
  configured: z.boolean(),
  capabilities: ProviderCapabilities,
  default_model: z.string().min(1),
  env_vars: z.array(z.string()),
  optional_env_vars: z.array(z.string()),
  missing_env_vars: z.array(z.string()),
  region: z.string().nullable(),
  validation_level: ValidationLevel,
  validation: z.string().min(1),
  description: z.string(),
  limitations: z.array(z.string()),
});
export type CompatibilityResult = z.infer<typeof CompatibilityResult>;

export interface ProviderRegistryOptions {
  /** Defaults to `process.env`. */
  env?: Env;
  /** Ids allowed to run; defaults to every registered id. */
  approved?: Iterable<string>;
}

function isSet(env: Env, name: string): boolean {
  const v = env[name];
  return v !== undefined && v.trim() !== '';
}

/**
 * The catalogue of model providers: which exist, what they can do, whether they are configured and approved, and
 * how to build them. Unknown, unapproved and unconfigured ids fail with errors that say what to do.
 *
 * @example
 * const registry = defaultProviderRegistry();
 * const provider = registry.get('openai', 'gpt-4o'); // throws unless OPENAI_API_KEY is set
 */
export class ProviderRegistry {
  readonly #entries = new Map<string, ProviderEntry>();
  readonly #env: Env;
  readonly #approved: Set<string> | null;

  constructor(entries: Iterable<ProviderEntry> = [], options: ProviderRegistryOptions = {}) {
    this.#env = options.env ?? process.env;
    this.#approved = options.approved ? new Set(options.approved) : null;
    for (const e of entries) this.register(e);
  }

  /** Adds an entry (or replaces one with the same id: soclab replaces the generic `mock` with its adversary). */
  register(entry: ProviderEntry): this {
    if (!/^[a-z][a-z0-9_]*$/.test(entry.id)) throw new ProviderError(`invalid provider id '${entry.id}'`);
    ProviderCapabilities.parse(entry.capabilities);
    this.#entries.set(entry.id, entry);
    return this;
  }

  /** A new registry with the same entries and different env / approved list. */
  withOptions(options: ProviderRegistryOptions): ProviderRegistry {
    return new ProviderRegistry(this.#entries.values(), {
      env: options.env ?? this.#env,
      approved: options.approved ?? this.#approved ?? undefined,
    });
  }

  ids(): string[] {
    return [...this.#entries.keys()];
  }

  has(id: string): boolean {
    return this.#entries.has(id);
  }

  entry(id: string): ProviderEntry {
    const e = this.#entries.get(id);
    if (!e) {
      const near = nearestName(id, this.ids());
      throw new ProviderError(
        `unknown provider '${id}'${near ? ` (did you mean '${near}'?)` : ''}; known: ${this.ids().join(', ')}`,
        {
          code: 'unknown_provider',
        },
      );
    }
    return e;
  }

  missingEnv(id: string): string[] {
    return this.entry(id).envVars.filter((n) => !isSet(this.#env, n));
  }

  configured(id: string): boolean {
    const e = this.entry(id);
    return e.configured ? e.configured(this.#env) : this.missingEnv(id).length === 0;
  }

  approved(id: string): boolean {
    this.entry(id);
    return this.#approved === null || this.#approved.has(id);
  }

  compatibility(id: string): CompatibilityResult {
    const e = this.entry(id);
    const missing = this.missingEnv(id);
    const configured = this.configured(id);
    const approved = this.approved(id);
    const limitations: string[] = [];
    if (!configured) {
      limitations.push(missing.length > 0 ? `credentials not configured: ${missing.join(', ')}` : 'not configured');
    }
    if (!e.capabilities.streaming) limitations.push('streaming not supported');
    if (!e.capabilities.tool_calling) limitations.push('native tool calling not supported');
    if (!e.capabilities.usage_reporting) limitations.push('usage is estimated, not provider reported');
    if (!approved) limitations.push('not on the approved provider list');
    limitations.push(...(e.notes ?? []));
    limitations.push(`validation: ${e.validation}`);
    const region = e.regionEnvVar && isSet(this.#env, e.regionEnvVar) ? (this.#env[e.regionEnvVar] as string) : null;
    return {
      provider_id: e.id,
      adapter: e.adapter,
      adapter_version: e.adapterVersion,
      approved,
      configured,
      capabilities: { ...e.capabilities },
      default_model: e.defaultModel,
      env_vars: [...e.envVars],
      optional_env_vars: [...(e.optionalEnvVars ?? [])],
      missing_env_vars: missing,
      region,
      validation_level: e.validationLevel,
      validation: e.validation,
      description: e.description,
      limitations,
    };
  }

  /**
   * Checks that a provider can be built, without building it: unknown, unapproved and unconfigured ids throw.
   * Callers run this before any run starts.
   */
  check(id: string): ProviderEntry {
    const e = this.entry(id);
    if (!this.approved(id)) {
      throw new ProviderError(`provider '${id}' is not on the approved list`, { code: 'not_approved' });
    }
    if (!this.configured(id)) {
      const missing = this.missingEnv(id);
      const what = missing.length > 0 ? missing : e.envVars;
      throw new ProviderError(`provider '${id}' is not configured; set ${what.join(', ')}`, {
        code: 'not_configured',
      });
    }
    return e;
  }

  /** Builds the provider for `model` (or the entry's default model). */
  get(id: string, model?: string, options?: CreateOptions): ModelProvider {
    const e = this.check(id);
    return e.create(this.#env, model ?? e.defaultModel, options);
  }

  /** Compatibility of every provider, in registration order. */
  matrix(): CompatibilityResult[] {
    return this.ids().map((id) => this.compatibility(id));
  }
}

/** The known name a mistyped one most likely meant: within a small edit distance (first wins a tie), else one it begins (`opena`). */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  const n = name.trim().toLowerCase();
  if (n.length === 0) return undefined;
  let best: string | undefined;
  let bestD = Number.POSITIVE_INFINITY;
  for (const k of known) {
    const a = n;
    const b = k.toLowerCase();
    let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const cur = [i];
      for (let j = 1; j <= b.length; j++)
        cur[j] = Math.min(
          (prev[j] as number) + 1,
          (cur[j - 1] as number) + 1,
          (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
        );
      prev = cur;
    }
    const d = prev[b.length] as number;
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  if (best !== undefined && bestD <= Math.max(1, Math.floor(n.length / 3))) return best;
  const prefixed = known.filter((k) => k.toLowerCase().startsWith(n));
  return n.length >= 3 ? [...prefixed].sort((a, b) => a.length - b.length)[0] : undefined;
}
