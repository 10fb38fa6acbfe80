/**
 * What the run needs from its secret scrubber. `SecretScrubber` (secrets/scrubber.ts) is the one
 * implementation; the contract lives here so suites and plugin contexts can name it without core
 * depending on the implementation.
 */
export interface Redactor {
  /** Register a secret (too-short values are ignored by the implementation). */
  add(secret: string | undefined | null): void;
  /** Register every secret part of a value found in a credential position. */
  addCredential(value: string | undefined | null): void;
  /** How many distinct secrets are registered. */
  readonly size: number;
  /** Replace every known secret form in `value`. */
  text(value: string): string;
  /** Scrub every string (keys included) of a JSON-like value. */
  deep<T>(value: T): T;
  /** Scrub every text field of an agent output. */
  output<T>(out: T): T;
}
