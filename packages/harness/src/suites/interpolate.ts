import { looksSecret, type SecretScrubber } from '../secrets/scrubber.js';
import type { PathKey } from './positions.js';

export interface InterpolationIssue {
  path: PathKey[];
  message: string;
}

const PATTERN = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Replace `${NAME}` (or `${NAME:-default}`) in every string of a parsed suite with the environment's value;
 * `$${` is a literal `${`. Values of secret-looking variables (TOKEN, KEY, SECRET, PASSWORD...) are added to
 * `redactor` so they can be scrubbed from anything written or printed. Unset variables without a default
 * are reported with their field path.
 */
export function interpolateEnv(
  value: unknown,
  env: Readonly<Record<string, string | undefined>>,
  redactor: SecretScrubber,
  issues: InterpolationIssue[],
  path: PathKey[] = [],
): unknown {
  if (typeof value === 'string') {
    if (!value.includes('${')) return value;
    return value.replace(PATTERN, (match, name: string | undefined, fallback: string | undefined) => {
      if (match === '$${') return '${';
      const name_ = name as string;
      const v = env[name_];
      if (v === undefined || v === '') {
        if (fallback !== undefined) return fallback;
        issues.push({ path, message: `environment variable ${name_} is not set` });
        return '';
      }
      if (looksSecret(name_)) redactor.add(v);
      return v;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolateEnv(v, env, redactor, issues, [...path, i]));
  if (value && typeof value === 'object') {
    // fromEntries defines own properties: a `__proto__` key stays a key (and is rejected as an unknown field)
    // instead of silently becoming the object's prototype.
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, interpolateEnv(v, env, redactor, issues, [...path, k])]),
    );
  }
  return value;
}
