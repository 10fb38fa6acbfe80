import { formatZodIssues } from '@aeh/harness/zod-issues';
import { z } from 'zod';
import { reproducibleNow, seededUuid } from './reproducible.js';

/**
 * Building blocks shared by every soclab contract ("strict models"): unknown fields are rejected, parsed values
 * are frozen, strings are trimmed, timestamps are timezone-aware and normalized to UTC.
 */

/** Deep-freezes a JSON-like value in place and returns it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/** A strict object: unknown keys fail validation and the parsed value is frozen. */
export function strictModel<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.strictObject(shape).readonly();
}

/** Trimmed string. */
export const Str = z.string().trim();
/** Trimmed, non-empty string. */
export const NonEmpty = z.string().trim().min(1);
/** Trimmed string of 1..max characters. */
export const bounded = (max: number) => z.string().trim().min(1).max(max);

export const IDENTIFIER_PATTERN = /^[a-z][a-z0-9_]*$/;
/** Tool, obligation, stage and agent-contract names. */
export const Identifier = z.string().trim().regex(IDENTIFIER_PATTERN, 'must match ^[a-z][a-z0-9_]*$');

export const SHA256_PATTERN = /^[0-9a-f]{64}$/;
/** Exactly 64 lowercase hex characters. */
export const Sha256Hex = z.string().trim().regex(SHA256_PATTERN, 'must be 64 lowercase hex characters (SHA-256)');

/** The genesis previous-hash of every chain. */
export const GENESIS_HASH = '0'.repeat(64);

/** A random v4 UUID (string form). */
export const Uuid = z.uuid();
/** Random, or derived from the seed inside a reproducible campaign's scope (see reproducible.ts). */
export const newUuid = (): string => seededUuid() ?? crypto.randomUUID();

/** ISO 8601 timestamp with `Z` or an explicit offset; normalized to UTC (`...Z`). Naive timestamps are rejected. */
export const UtcTimestamp = z
  .string()
  .trim()
  .pipe(z.iso.datetime({ offset: true, error: 'timestamps must be timezone-aware UTC' }))
  .overwrite((s) => new Date(s).toISOString());
export const nowUtc = (): string => reproducibleNow().toISOString();
/** A timestamp field that defaults to the current time. */
export const TimestampNow = UtcTimestamp.default(nowUtc);

/** A JSON object whose contents are copied and deep-frozen on parse (so callers' objects are never frozen). */
export const JsonObject = z.record(z.string(), z.unknown()).overwrite((v) => deepFreeze(structuredClone(v)));
export type JsonObject = Readonly<Record<string, unknown>>;

/** Every issue as `path: message`, joined by '; ' (the harness's formatter, shared by both packages). */
export { formatZodIssues };

/** Validation failure of a soclab contract; the message names each failing field path. */
export class ContractValidationError extends Error {
  override name = 'ContractValidationError';
  constructor(
    readonly contract: string,
    readonly issues: readonly z.core.$ZodIssue[],
    message: string,
  ) {
    super(`${contract}: ${message}`);
  }
}

/** Parse `input` with `schema`, throwing a ContractValidationError naming the contract and field paths. */
export function parseContract<S extends z.ZodType>(contract: string, schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ContractValidationError(contract, result.error.issues, formatZodIssues(result.error));
  return result.data;
}
