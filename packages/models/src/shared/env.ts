import { ProviderError } from '../provider.js';

/** Reads an env var, treating blank as missing. */
export function envValue(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const v = env[name];
  return v !== undefined && v.trim() !== '' ? v.trim() : undefined;
}

/**
 * The values of `names`, in order (one string per name, so a tuple of names destructures to strings);
 * throws a ProviderError naming every missing variable.
 */
export function requireEnv<const Names extends readonly string[]>(
  providerId: string,
  env: Readonly<Record<string, string | undefined>>,
  names: Names,
): { [K in keyof Names]: string } {
  const values: string[] = [];
  const missing: string[] = [];
  for (const name of names) {
    const value = envValue(env, name);
    if (value === undefined) missing.push(name);
    else values.push(value);
  }
  if (missing.length > 0) {
    throw new ProviderError(`provider '${providerId}' is not configured; set ${missing.join(', ')}`, {
      code: 'not_configured',
    });
  }
  // Every name had a value, so `values` has exactly one string per name, in order.
  return values as { [K in keyof Names]: string };
}
