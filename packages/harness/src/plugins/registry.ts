import type { z } from 'zod';
import { levenshtein } from '../core/edit-distance.js';
import type { Redactor } from '../core/redactor.js';

/** Everything a plugin factory may need from the run that creates it. */
export interface PluginContext {
  /** Directory that relative paths in options resolve against (the suite file's folder). */
  baseDir: string;
  /** Environment the run was started with (secrets are resolved from here, never from the queue or files). */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * The run's secret scrubber. Adapters register every value they put in a credential position (templated
   * Authorization headers, key-like query parameters...) so it is scrubbed from everything the run writes.
   */
  secrets?: Redactor;
}

/** Fields every registered plugin carries. */
export interface PluginBase<Options = unknown> {
  readonly name: string;
  /** One line, shown by `harness list-plugins`. */
  readonly description: string;
  /** Validates the options given in a suite; errors carry a field path. */
  readonly options: z.ZodType<Options>;
  /**
   * A valid options set as written in a suite, shown by `harness list-plugins` and used by the conformance tests
   * to build the plugin. Needed when an option is required; without it they build the plugin with `{}`.
   */
  readonly example?: Readonly<Record<string, unknown>>;
}

/** Thrown when a name is not registered; the message lists known names and the closest one. */
export class UnknownPluginError extends Error {
  readonly code = 'AEH_ERR_UNKNOWN_PLUGIN';
  override name = 'UnknownPluginError';
  constructor(
    readonly kind: string,
    readonly requested: string,
    readonly known: readonly string[],
  ) {
    const suggestion = closest(requested, known);
    super(
      `unknown ${kind} '${requested}'${suggestion ? `; did you mean '${suggestion}'?` : ''} (known: ${known.join(', ') || 'none'})`,
    );
  }
}

/** A typed name -> plugin map. Names are case-insensitive; registering a name twice replaces it. */
export class Registry<P extends PluginBase<never>> {
  readonly #plugins = new Map<string, P>();
  constructor(readonly kind: string) {}

  register(plugin: P): P {
    this.#plugins.set(plugin.name.toLowerCase(), plugin);
    return plugin;
  }

  has(name: string): boolean {
    return this.#plugins.has(name.toLowerCase());
  }

  get(name: string): P {
    const plugin = this.#plugins.get(name.toLowerCase());
    if (!plugin) throw new UnknownPluginError(this.kind, name, this.names());
    return plugin;
  }

  names(): string[] {
    return [...this.#plugins.keys()].sort();
  }

  list(): P[] {
    return this.names().map((n) => this.#plugins.get(n) as P);
  }

  unregister(name: string): boolean {
    return this.#plugins.delete(name.toLowerCase());
  }
}

/** Levenshtein distance, used for "did you mean" suggestions (one implementation, in core/). */
export { levenshtein };

/** The known name nearest to `name`, if it is close enough to be a likely typo. */
export function closest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  const lower = name.toLowerCase();
  for (const candidate of known) {
    const d = levenshtein(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(lower.length / 3)) ? best : undefined;
}
