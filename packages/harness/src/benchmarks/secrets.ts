/** Variable names that look like they hold a secret; their values are redacted everywhere. */
const SECRET_NAME = /(TOKEN|KEY|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION)/i;

export const REDACTED = '[REDACTED]';

/** True when an environment variable name looks like it holds a secret. */
export function looksSecret(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * Keeps the secret values a run has seen (interpolated from secret-looking variables) and scrubs them
 * from any text before it is written or printed: journal lines, reports, error messages.
 */
export class Redactor {
  readonly #values = new Set<string>();
  #forms: string[] = [];

  /** Remember a secret value; values shorter than 4 characters are ignored (too likely to collide). */
  add(value: string | undefined): void {
    if (!value || value.length < 4 || this.#values.has(value)) return;
    this.#values.add(value);
    // Scrub the raw value and its JSON-escaped form (what a journal line holds), longest first.
    const escaped = JSON.stringify(value).slice(1, -1);
    const forms = new Set([...this.#forms, value, escaped]);
    this.#forms = [...forms].sort((a, b) => b.length - a.length);
  }

  get size(): number {
    return this.#values.size;
  }

  /** Replace every known secret in `text` with [REDACTED]. */
  scrub(text: string): string {
    if (this.#forms.length === 0) return text;
    let out = text;
    for (const form of this.#forms) {
      if (out.includes(form)) out = out.split(form).join(REDACTED);
    }
    return out;
  }

  /** Deep copy of a JSON-like value with secrets scrubbed from every string. */
  scrubValue<T>(value: T): T {
    if (this.#forms.length === 0) return value;
    return JSON.parse(this.scrub(JSON.stringify(value))) as T;
  }
}
