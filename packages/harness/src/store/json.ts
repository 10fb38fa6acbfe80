/** Which SQL engine holds the run index. */
export type StoreDialect = 'sqlite' | 'postgres';

// An escaped NUL (`\u0000`) preceded by an even number of backslashes, i.e. a real escape, not `\\u0000` text.
const ESCAPED_NUL = /(?<!\\)((?:\\\\)*)\\u0000/g;

/**
 * JSON column codec: text in SQLite, jsonb in PostgreSQL. PostgreSQL rejects NUL in text and jsonb, and
 * agent output is untrusted, so NUL becomes U+FFFD there; SQLite keeps the value exactly.
 */
export interface JsonCodec {
  readonly dialect: StoreDialect;
  encode(value: unknown): string;
  decode<T>(stored: unknown): T;
  /** Make a plain text value storable (NUL stripped in PostgreSQL). */
  text(value: string): string;
  textOrNull(value: string | null | undefined): string | null;
}

export function jsonCodec(dialect: StoreDialect): JsonCodec {
  const pg = dialect === 'postgres';
  const text = (value: string) => (pg && value.includes('\u0000') ? value.replaceAll('\u0000', '\ufffd') : value);
  return {
    dialect,
    encode(value) {
      const s = JSON.stringify(value ?? null);
      return pg && s.includes('\\u0000') ? s.replace(ESCAPED_NUL, '$1\\ufffd') : s;
    },
    decode<T>(stored: unknown): T {
      // pg parses jsonb itself; SQLite hands back the text.
      if (!pg && typeof stored === 'string') return JSON.parse(stored) as T;
      return stored as T;
    },
    text,
    textOrNull: (value) => (value === null || value === undefined ? null : text(value)),
  };
}
