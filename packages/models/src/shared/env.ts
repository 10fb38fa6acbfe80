import { ProviderError } from '../provider.js';

/** Reads an env var, treating blank as missing. */
export function envValue(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const v = env[name];
  return v !== undefined && v.trim() !== '' ? v.trim() : undefined;
}

/** Throws a ProviderError naming every missing variable. */
export function requireEnv(
  providerId: string,
  env: Readonly<Record<string, string | undefined>>,
  names: readonly string[],
): string[] {
  const missing = names.filter((n) => envValue(env, n) === undefined);
  if (missing.length > 0) {
    throw new ProviderError(`provider '${providerId}' is not configured; set ${missing.join(', ')}`, {
      code: 'not_configured',
    });
  }
  return names.map((n) => envValue(env, n) as string);
}
