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

/**
 * Thrown by `Registry.get` for a built-in declared by name but whose module was not loaded: a harness bug, never bad
 * input (not exported: nothing should catch it).
 */
class BuiltinNotLoadedError extends Error {
  override name = 'BuiltinNotLoadedError';
  constructor(kind: string, requested: string) {
    super(`built-in ${kind} '${requested}' was not loaded (internal error: load it with Registry.load first)`);
  }
}

/**
 * A typed name -> plugin map. Names are case-insensitive; registering a name twice replaces it.
 * A built-in may be declared by name only, with the loader of its module (plugins/builtins.ts): its name counts in
 * `names()` (so "did you mean" and the known list are the same as when it is loaded), and its module (zod schemas
 * and all) is evaluated by `load()` only when something names it. `has`, `get` and `list` see loaded plugins only.
 */
export class Registry<P extends PluginBase<never>> {
  readonly #plugins = new Map<string, P>();
  readonly #declared = new Map<string, () => Promise<unknown>>();
  constructor(readonly kind: string) {}

  register(plugin: P): P {
    const key = plugin.name.toLowerCase();
    // Registered (by its own module or by a plugin replacing it): no longer waits to be loaded.
    this.#declared.delete(key);
    this.#plugins.set(key, plugin);
    return plugin;
  }

  /** Declares a built-in by name; `load` imports the module that registers it. A name already registered is kept. */
  declare(name: string, load: () => Promise<unknown>): void {
    const key = name.toLowerCase();
    if (!this.#plugins.has(key)) this.#declared.set(key, load);
  }

  /** True while `name` is declared and its module not loaded. */
  isDeclared(name: string): boolean {
    return this.#declared.has(name.toLowerCase());
  }

  /** Loads the declared built-ins among `names` (all of them without `names`); other names are ignored. */
  async load(names?: Iterable<string>): Promise<void> {
    const keys = names === undefined ? [...this.#declared.keys()] : [...names].map((n) => n.toLowerCase());
    const loads = new Set<() => Promise<unknown>>();
    for (const key of keys) {
      const load = this.#declared.get(key);
      if (load) loads.add(load);
    }
    await Promise.all([...loads].map((load) => load()));
  }

  has(name: string): boolean {
    return this.#plugins.has(name.toLowerCase());
  }

  get(name: string): P {
    const plugin = this.#plugins.get(name.toLowerCase());
    if (plugin) return plugin;
    if (this.isDeclared(name)) throw new BuiltinNotLoadedError(this.kind, name);
    throw new UnknownPluginError(this.kind, name, this.names());
  }

  /** Every known name: registered, and declared built-ins not loaded yet. */
  names(): string[] {
    return [...new Set([...this.#plugins.keys(), ...this.#declared.keys()])].sort();
  }

  list(): P[] {
    return [...this.#plugins.keys()].sort().map((n) => this.#plugins.get(n) as P);
  }

  unregister(name: string): boolean {
    const key = name.toLowerCase();
    return this.#declared.delete(key) || this.#plugins.delete(key);
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
