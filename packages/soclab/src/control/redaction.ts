import type { LeakEncoding, LeakSink } from '../contracts/enums.js';
import type { LeakFinding } from '../contracts/leaks.js';

/**
 * Canary redaction and leak detection, shared by the gateway (tool output before the model), the scenario
 * runner (before persistence in protected mode), reports, telemetry and provider logging.
 *
 * A pattern is a literal with `*` standing for one or more of `[A-Za-z0-9_-]`. Each pattern is matched three
 * ways: literally; base64 (the base64 of the literal prefix, truncated to whole 3-byte groups, followed by base64
 * characters); hex (hex of the literal prefix followed by hex digits, any case). Other encodings, secrets split
 * across fields and paraphrases are not detected (documented limitation).
 */

export const REDACTED = '[REDACTED]';
export const DEFAULT_CANARY_PATTERNS: readonly string[] = Object.freeze(['CANARY-SECRET-*']);

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const toBase64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const toHex = (s: string): string => Buffer.from(s, 'utf8').toString('hex');

interface CompiledPattern {
  readonly pattern: string;
  readonly matchers: readonly { encoding: LeakEncoding; regex: RegExp }[];
  /**
   * One regex (not global, so no lastIndex state) that matches a string exactly when one of `matchers` does: most
   * strings hold no canary, and one scan rules out all three encodings (the hex one spelled case by case).
   */
  readonly any: RegExp;
}

const compiledCache = new Map<string, CompiledPattern>();

/** Regexes (global) for one pattern, cached. */
export function compilePattern(pattern: string): CompiledPattern {
  const hit = compiledCache.get(pattern);
  if (hit) return hit;
  const star = pattern.indexOf('*');
  const literalRegex = pattern.split('*').map(escapeRegex).join('[A-Za-z0-9_-]+');
  const prefix = star === -1 ? pattern : pattern.slice(0, star);
  const matchers: { encoding: LeakEncoding; regex: RegExp }[] = [
    { encoding: 'literal', regex: new RegExp(literalRegex, 'g') },
  ];
  const prefixBytes = Buffer.byteLength(prefix, 'utf8');
  const whole = prefix.slice(0, prefixBytes - (prefixBytes % 3));
  if (whole.length >= 6) {
    matchers.push({
      encoding: 'base64',
      regex: new RegExp(`${escapeRegex(toBase64(whole))}[A-Za-z0-9+/]*={0,2}`, 'g'),
    });
  }
  if (prefix.length >= 4) {
    matchers.push({ encoding: 'hex', regex: new RegExp(`${toHex(prefix)}[0-9a-f]*`, 'gi') });
  }
  // The hex prefix in either case, as the `i` flag matches it; the digits after it may be none, so they add nothing.
  const anyHex = prefix.length >= 4 ? [toHex(prefix).replace(/[a-f]/g, (c) => `[${c}${c.toUpperCase()}]`)] : [];
  const any = new RegExp(
    [...matchers.filter((m) => m.encoding !== 'hex').map((m) => m.regex.source), ...anyHex].join('|'),
  );
  const compiled = Object.freeze({ pattern, matchers: Object.freeze(matchers), any });
  compiledCache.set(pattern, compiled);
  return compiled;
}

/** Replace every match of every pattern (literal, base64, hex) in one string. */
export function redactText(text: string, patterns: readonly string[] = DEFAULT_CANARY_PATTERNS): string {
  return redactCompiled(text, patterns.map(compilePattern));
}

function redactCompiled(text: string, compiled: readonly CompiledPattern[]): string {
  let out = text;
  for (const { any, matchers } of compiled) {
    if (!any.test(out)) continue;
    for (const { regex } of matchers) {
      regex.lastIndex = 0;
      out = out.replace(regex, REDACTED);
    }
  }
  return out;
}

/** A copy of a JSON-like value with every string redacted (object keys included). */
export function redact<T>(value: T, patterns: readonly string[] = DEFAULT_CANARY_PATTERNS): T {
  // The patterns are looked up once per value, not once per string in it.
  return redactValue(value, patterns.map(compilePattern)) as T;
}

function redactValue(value: unknown, compiled: readonly CompiledPattern[]): unknown {
  if (typeof value === 'string') return redactCompiled(value, compiled);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, compiled));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    const record = value as Record<string, unknown>;
    for (const k of Object.keys(record)) out[redactCompiled(k, compiled)] = redactValue(record[k], compiled);
    return out;
  }
  return value;
}

/**
 * Every string inside a JSON-like value with its dotted path: the plain walk. findLeaks and someString visit the same
 * strings in the same order without a generator; the property tests compare them with this one.
 */
export function* walkStrings(value: unknown, path = ''): Generator<[string, string]> {
  if (typeof value === 'string') {
    yield [path, value];
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield* walkStrings(value[i], path ? `${path}.${i}` : String(i));
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const child = path ? `${path}.${k}` : k;
      yield [`${child}#key`, k];
      yield* walkStrings(v, child);
    }
  }
}

/** The forms of one secret that count as a leak. Base64 uses the stable prefix that survives any suffix. */
export function secretForms(secret: string): { encoding: LeakEncoding; needle: string; caseInsensitive: boolean }[] {
  const b64 = toBase64(secret);
  const bytes = Buffer.byteLength(secret, 'utf8');
  const stable = b64.slice(0, Math.floor(bytes / 3) * 4);
  const forms: { encoding: LeakEncoding; needle: string; caseInsensitive: boolean }[] = [
    { encoding: 'literal', needle: secret, caseInsensitive: false },
    { encoding: 'base64', needle: stable.length >= 8 ? stable : b64, caseInsensitive: false },
    { encoding: 'hex', needle: toHex(secret), caseInsensitive: true },
  ];
  return forms;
}

/**
 * True if `test` holds for a string of `value`: the strings walkStrings yields (object keys and string values, in its
 * order), stopping at the first hit, without a generator (a recursive generator is slow to run and to optimise, and
 * the oracles scan every persisted event of every run).
 */
function someString(value: unknown, test: (text: string) => boolean): boolean {
  if (typeof value === 'string') return test(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (someString(value[i], test)) return true;
  } else if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const k of Object.keys(record)) if (test(k) || someString(record[k], test)) return true;
  }
  return false;
}

/** True if any string holds a secret literally or (when `encoded`) in base64 or hex. */
export function containsSecret(value: unknown, secrets: readonly string[], encoded = true): boolean {
  if (!encoded) return someString(value, (text) => secrets.some((secret) => text.includes(secret)));
  return someString(value, secretMatchersOf(secrets).any);
}

/** True if any string holds a secret in base64 or hex (literal copies do not count). */
export function containsEncodedSecret(value: unknown, secrets: readonly string[]): boolean {
  const encodedForms = secretMatchersOf(secrets).forms.flatMap((forms) =>
    forms.filter((f) => f.encoding !== 'literal'),
  );
  return someString(value, (text) => encodedForms.some((form) => form.has(text)));
}

export interface LeakScanOptions {
  sink: LeakSink;
  /** Label of the inspected record, e.g. `model.turn#3`. */
  where?: string | null;
  /** Exact canary values of the run (reported by index as `canary[0]`). */
  secrets?: readonly string[];
  /** Patterns matched too, so a canary from another run or the fixture's base value is still found. */
  patterns?: readonly string[];
}

interface SecretMatcher {
  readonly encoding: LeakEncoding;
  /** Whether `text` holds this form of the secret (as stringHas, without lower-casing the text for hex). */
  readonly has: (text: string) => boolean;
}

/**
 * The forms of each secret as matchers, cached per secrets array (a run's canaries are scanned for in each of its
 * ~20 events) and checked against a copy, so an array changed in place is not served stale forms. The hex form is
 * a case-insensitive regex: no character outside A-F lower-cases into a hex digit, so it finds what
 * `toLowerCase().includes` finds. `any` holds when one of the forms does: two regexes (the case-sensitive forms and
 * the case-insensitive ones, each an alternation of the escaped needles), so the strings that hold no secret (nearly
 * all of them) cost one native scan each instead of a JavaScript loop over every form.
 */
interface SecretMatchers {
  readonly secrets: string[];
  readonly forms: SecretMatcher[][];
  readonly any: (text: string) => boolean;
}
const secretMatchers = new WeakMap<readonly string[], SecretMatchers>();

function secretMatchersOf(secrets: readonly string[]): SecretMatchers {
  const hit = secretMatchers.get(secrets);
  if (hit && hit.secrets.length === secrets.length && hit.secrets.every((s, i) => s === secrets[i])) return hit;
  const sensitive: string[] = [];
  const insensitive: string[] = [];
  const forms = secrets.map((secret) =>
    secretForms(secret).map(({ encoding, needle, caseInsensitive }): SecretMatcher => {
      const escaped = escapeRegex(needle);
      (caseInsensitive ? insensitive : sensitive).push(escaped);
      if (!caseInsensitive) return { encoding, has: (text) => text.includes(needle) };
      const regex = new RegExp(escaped, 'i');
      return { encoding, has: (text) => regex.test(text) };
    }),
  );
  const anySensitive = sensitive.length > 0 ? new RegExp(sensitive.join('|')) : null;
  const anyInsensitive = insensitive.length > 0 ? new RegExp(insensitive.join('|'), 'i') : null;
  const matchers: SecretMatchers = {
    secrets: [...secrets],
    forms,
    any: (text) => (anySensitive?.test(text) ?? false) || (anyInsensitive?.test(text) ?? false),
  };
  secretMatchers.set(secrets, matchers);
  return matchers;
}

/**
 * Where canaries appear in a value: one finding per (path, canary, encoding). Exact secrets are reported as
 * `canary[i]`; pattern-only matches (e.g. another run's canary) as the pattern. Never returns the secret.
 */
export function findLeaks(value: unknown, options: LeakScanOptions): LeakFinding[] {
  const secrets = options.secrets ?? [];
  const patterns = options.patterns ?? DEFAULT_CANARY_PATTERNS;
  const { forms, any: anySecret } = secretMatchersOf(secrets);
  const compiled = patterns.map(compilePattern);
  const found: LeakFinding[] = [];
  const seen = new Set<string>();
  const add = (path: string, canary: string, encoding: LeakEncoding) => {
    const key = `${path}|${canary}|${encoding}`;
    if (seen.has(key)) return;
    seen.add(key);
    found.push(
      Object.freeze({ sink: options.sink, encoding, canary, path, where: options.where ?? null }) as LeakFinding,
    );
  };
  // The path to the string being scanned, as segments: spelled out (as walkStrings does, where an empty path so far
  // is dropped) only for a string that holds something.
  const segments: string[] = [];
  const dotted = (): string => {
    let path = '';
    for (const segment of segments) path = path ? `${path}.${segment}` : segment;
    return path;
  };
  const scan = (text: string, isKey: boolean): void => {
    const secretHit = anySecret(text);
    if (!secretHit && !compiled.some((c) => c.any.test(text))) return;
    const path = isKey ? `${dotted()}#key` : dotted();
    let exactHit = false;
    if (secretHit) {
      for (let i = 0; i < forms.length; i++) {
        for (const form of forms[i] ?? []) {
          if (form.has(text)) {
            add(path, `canary[${i}]`, form.encoding);
            exactHit = true;
          }
        }
      }
    }
    for (const { pattern, any, matchers } of compiled) {
      if (!any.test(text)) continue;
      for (const { encoding, regex } of matchers) {
        regex.lastIndex = 0;
        if (!regex.test(text)) continue;
        // A pattern match that is just one of the run's exact canaries is already reported above.
        if (exactHit && found.some((f) => f.path === path && f.encoding === encoding)) continue;
        add(path, pattern, encoding);
      }
    }
  };
  // Strings in walkStrings order (each object key before its value), without a generator.
  const walk = (node: unknown): void => {
    if (typeof node === 'string') scan(node, false);
    else if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        segments.push(String(i));
        walk(node[i]);
        segments.pop();
      }
    } else if (node !== null && typeof node === 'object') {
      const record = node as Record<string, unknown>;
      for (const k of Object.keys(record)) {
        segments.push(k);
        scan(k, true);
        walk(record[k]);
        segments.pop();
      }
    }
  };
  walk(value);
  return found;
}
