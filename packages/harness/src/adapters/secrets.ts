import type { AgentOutput } from '../core/agent.js';

/** What a secret is replaced with wherever it would otherwise be recorded. */
export const REDACTED = '[REDACTED]';

/**
 * Removes known secret values (tokens, passwords, API keys) from text and JSON before anything is returned to
 * the runner, so a server that echoes the token back cannot leak it into journals, reports or error messages.
 * Each secret is also removed in its URL-encoded and base64 forms.
 *
 * @example
 *   const s = new SecretScrubber(['tok-123']);
 *   s.text('bad token tok-123'); // 'bad token [REDACTED]'
 */
export class SecretScrubber {
  #needles: string[] = [];

  constructor(secrets: Iterable<string | undefined | null> = []) {
    for (const s of secrets) this.add(s);
  }

  /** Register a secret (values shorter than 3 characters are ignored: they would redact ordinary text). */
  add(secret: string | undefined | null): void {
    if (!secret || secret.length < 3) return;
    const forms = new Set([secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64')]);
    for (const f of forms) if (f.length >= 3 && !this.#needles.includes(f)) this.#needles.push(f);
    // Longest first, so a secret that contains another is removed whole.
    this.#needles.sort((a, b) => b.length - a.length);
  }

  get size(): number {
    return this.#needles.length;
  }

  text(value: string): string {
    let out = value;
    for (const n of this.#needles) if (out.includes(n)) out = out.split(n).join(REDACTED);
    return out;
  }

  /** Scrub every string (keys included) in a JSON-like value; returns the same value when nothing changed. */
  deep<T>(value: T): T {
    if (this.#needles.length === 0) return value;
    return this.#deep(value, 0) as T;
  }

  #deep(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.text(value);
    if (value === null || typeof value !== 'object' || depth > 64) return value;
    if (Array.isArray(value)) return value.map((v) => this.#deep(v, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[this.text(k)] = this.#deep(v, depth + 1);
    return out;
  }

  /** Scrub every text field of an AgentOutput. */
  output(out: AgentOutput): AgentOutput {
    if (this.#needles.length === 0) return out;
    return this.deep(out);
  }
}
