import { existsSync, statSync } from 'node:fs';
import { delimiter, resolve } from 'node:path';
import { errorMessage } from '@aeh/harness/errors';
import { formatZodIssues } from '@aeh/harness/zod-issues';
import { ProviderCapabilities, type ProviderEntry, registerPrices, ValidationLevel } from '@aeh/models';
import { z } from 'zod';

/**
 * Third-party providers loaded from a module path (`--provider-module`, `provider_modules:` in a serve config),
 * the way the harness loads `plugins:`. A module contributes every export that is a provider entry (the
 * `ProviderEntry` of @aeh/models), so bringing your own agent adapter needs no edit to this package.
 */

/** Thrown for a module that is missing, fails to load, or exports no valid provider entry (CLI exit 2). */
export class ProviderModuleError extends Error {
  override name = 'ProviderModuleError';
}

// What a module's export must look like to be taken as a provider entry; checked here so a bad module fails at
// start-up with the field that is wrong, not at the first call of a campaign.
// Built on first use: only a run with --provider-module / provider_modules loads a module.
let providerEntryShape: ReturnType<typeof buildProviderEntryShape> | undefined;
function buildProviderEntryShape() {
  return z.looseObject({
    id: z.string().regex(/^[a-z][a-z0-9_]*$/, 'lower-case letters, digits and _ (starting with a letter)'),
    adapter: z.string().min(1),
    adapterVersion: z.string().min(1),
    envVars: z.array(z.string()),
    optionalEnvVars: z.array(z.string()).optional(),
    prices: z
      .record(
        z.string(),
        z.strictObject({ input_per_million: z.number().min(0), output_per_million: z.number().min(0) }),
      )
      .optional(),
    capabilities: ProviderCapabilities,
    defaultModel: z.string().min(1),
    validationLevel: ValidationLevel,
    validation: z.string().min(1),
    description: z.string(),
    create: z.custom<ProviderEntry['create']>((v) => typeof v === 'function', 'expected a function create(env, model)'),
  });
}
const entryShape = () => (providerEntryShape ??= buildProviderEntryShape());

/** An export that means to be a provider entry (an object with an id and a create), valid or not. */
const looksLikeEntry = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && 'id' in value && 'create' in value;

const loaded = new Map<string, ProviderEntry>();

/** Entries loaded so far in this process, in load order (soclabProviderRegistry adds them to its own). */
export function extraProviderEntries(): ProviderEntry[] {
  return [...loaded.values()];
}

/** Forget loaded modules (tests). */
export function clearProviderModules(): void {
  loaded.clear();
}

/**
 * Load provider entries from each module (a path, resolved against `baseDir`; `.ts` works as for harness plugins).
 * `reserved` ids (the built-in providers) cannot be replaced: a module naming one is refused, so a third-party
 * file can never stand in for a vendor the reports would name.
 */
export async function loadProviderModules(
  specs: readonly string[],
  options: { baseDir?: string; reserved?: readonly string[]; source?: string } = {},
): Promise<ProviderEntry[]> {
  const baseDir = options.baseDir ?? process.cwd();
  const source = options.source ?? '--provider-module';
  const added: ProviderEntry[] = [];
  for (const spec of specs) {
    const file = resolve(baseDir, spec);
    if (!existsSync(file) || !statSync(file).isFile()) {
      throw new ProviderModuleError(`${file}: provider module not found (from ${source} ${spec})`);
    }
    let mod: Record<string, unknown>;
    try {
      // The harness plugin loader (and the evaluator base it brings) loads only when a module is named.
      const { importModule } = await import('@aeh/harness/plugins');
      mod = await importModule(file, baseDir);
    } catch (error) {
      const message = errorMessage(error);
      throw new ProviderModuleError(`${file}: provider module failed to load: ${message.split('\n')[0]}`);
    }
    const candidates = Object.entries(mod).filter(([, value]) => looksLikeEntry(value));
    if (candidates.length === 0) {
      const names = Object.keys(mod).filter((k) => k !== 'default');
      throw new ProviderModuleError(
        `${file}: exports no provider entry (an object with id, adapter, adapterVersion, envVars, capabilities, ` +
          `defaultModel, validationLevel, validation, description and create(env, model)); it exports ${names.length ? names.join(', ') : 'nothing'}`,
      );
    }
    for (const [name, value] of candidates) {
      const parsed = entryShape().safeParse(value);
      if (!parsed.success) {
        throw new ProviderModuleError(
          `${file}: export '${name}' is not a valid provider entry: ${formatZodIssues(parsed.error)}`,
        );
      }
      const entry = value as unknown as ProviderEntry;
      if (options.reserved?.includes(entry.id)) {
        throw new ProviderModuleError(
          `${file}: export '${name}' uses the id '${entry.id}' of a built-in provider; give your provider its own id`,
        );
      }
      const previous = loaded.get(entry.id);
      if (previous && previous !== entry) {
        throw new ProviderModuleError(`${file}: provider id '${entry.id}' is already loaded from another module`);
      }
      loaded.set(entry.id, entry);
      // Its models' prices join the table cost estimates use, as a built-in provider's do.
      registerPrices(entry);
      added.push(entry);
    }
  }
  return added;
}

/** Where a server hands its provider modules to its campaign worker threads (absolute paths, path-delimited). */
export const PROVIDER_MODULES_ENV = 'SOCLAB_PROVIDER_MODULES';

/**
 * Load the provider modules named in `env` (a campaign worker thread: threads do not share the server's loaded
 * modules, so each loads them once itself). Loading a module again is a no-op.
 */
export async function loadProviderModulesFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  reserved: readonly string[],
): Promise<void> {
  const specs = (env[PROVIDER_MODULES_ENV] ?? '').split(delimiter).filter(Boolean);
  if (specs.length > 0) await loadProviderModules(specs, { reserved, source: PROVIDER_MODULES_ENV });
}
