/**
 * A small JSONPath subset used to map agent replies onto AgentOutput fields.
 *
 * Supported: `$` (root), `.name`, `['name']` / `["name"]`, `[3]`, `[-1]` (from the end), `[*]` and `.*`
 * (wildcard), and `a ?? b` (first alternative that matches). A path without a leading `$` is read as `$.path`.
 *
 * @example
 *   const path = compileJsonPath('$.steps[*].tool');
 *   path.select({ steps: [{ tool: 'a' }, { tool: 'b' }] }); // ['a', 'b']
 */

type Segment = { kind: 'key'; key: string } | { kind: 'index'; index: number } | { kind: 'wildcard' };

/** Thrown for a path that cannot be parsed; the message names the path and the column. */
export class JsonPathError extends Error {
  readonly code = 'AEH_ERR_JSON_PATH';
  override name = 'JsonPathError';
}

export interface CompiledJsonPath {
  readonly source: string;
  /** True when the path can yield several values (it has a wildcard). */
  readonly multi: boolean;
  /** Every value the path reaches, in document order. */
  all(data: unknown): unknown[];
  /** The value for a single-valued path (undefined when absent); an array of matches for a wildcard path. */
  select(data: unknown): unknown;
}

function parseOne(source: string, offset: number): Segment[] {
  const trimmed = source.trim();
  if (trimmed === '') throw new JsonPathError(`empty JSON path at column ${offset + 1}`);
  const lead = offset + source.indexOf(trimmed);
  const shift = trimmed.startsWith('$') ? 0 : trimmed.startsWith('[') ? 1 : 2;
  const text = ['', '$', '$.'][shift] + trimmed;
  const col = (k: number) => lead + Math.max(0, k - shift) + 1;
  const segments: Segment[] = [];
  let i = 1;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '.') {
      i++;
      if (text[i] === '*') {
        segments.push({ kind: 'wildcard' });
        i++;
        continue;
      }
      const start = i;
      while (i < text.length && /[A-Za-z0-9_$-]/.test(text.charAt(i))) i++;
      if (i === start) throw new JsonPathError(`invalid JSON path '${trimmed}': expected a name at column ${col(i)}`);
      segments.push({ kind: 'key', key: text.slice(start, i) });
      continue;
    }
    if (ch === '[') {
      const close = findClose(text, i);
      if (close < 0) throw new JsonPathError(`invalid JSON path '${trimmed}': unclosed '[' at column ${col(i)}`);
      const inner = text.slice(i + 1, close).trim();
      if (inner === '*') segments.push({ kind: 'wildcard' });
      else if (/^-?\d+$/.test(inner)) segments.push({ kind: 'index', index: Number(inner) });
      else if (/^'.*'$|^".*"$/s.test(inner)) segments.push({ kind: 'key', key: inner.slice(1, -1) });
      else
        throw new JsonPathError(
          `invalid JSON path '${trimmed}': expected an index, '*' or a quoted name at column ${col(i + 1)}`,
        );
      i = close + 1;
      continue;
    }
    throw new JsonPathError(`invalid JSON path '${trimmed}': unexpected '${ch}' at column ${col(i)}`);
  }
  return segments;
}

function findClose(text: string, open: number): number {
  let quote: string | null = null;
  for (let k = open + 1; k < text.length; k++) {
    const c = text[k];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === ']') return k;
  }
  return -1;
}

function walk(value: unknown, segments: readonly Segment[], from: number, out: unknown[]): void {
  const seg = segments[from];
  if (seg === undefined) {
    // Past the last segment: the value reached is a match.
    if (value !== undefined) out.push(value);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (seg.kind === 'wildcard') {
    const children = Array.isArray(value) ? value : Object.values(value);
    for (const child of children) walk(child, segments, from + 1, out);
    return;
  }
  if (seg.kind === 'index') {
    if (!Array.isArray(value)) return;
    const idx = seg.index < 0 ? value.length + seg.index : seg.index;
    walk(value[idx], segments, from + 1, out);
    return;
  }
  if (Array.isArray(value)) return;
  if (!Object.hasOwn(value, seg.key)) return;
  walk((value as Record<string, unknown>)[seg.key], segments, from + 1, out);
}

/** Parse a path (or `a ?? b` alternatives) once; throws JsonPathError with the column of the mistake. */
export function compileJsonPath(source: string): CompiledJsonPath {
  const parts: Segment[][] = [];
  let offset = 0;
  for (const piece of source.split('??')) {
    parts.push(parseOne(piece, offset));
    offset += piece.length + 2;
  }
  const multi = parts.some((p) => p.some((s) => s.kind === 'wildcard'));
  const all = (data: unknown): unknown[] => {
    for (const segments of parts) {
      const out: unknown[] = [];
      walk(data, segments, 0, out);
      if (out.length > 0) return out;
    }
    return [];
  };
  return {
    source,
    multi,
    all,
    select(data) {
      const found = all(data);
      return multi ? found : found[0];
    },
  };
}
