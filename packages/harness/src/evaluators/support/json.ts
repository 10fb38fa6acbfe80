import { errorMessage } from '../../core/errors.js';
import { itemAt } from '../../core/item-at.js';

/** Parsing JSON out of agent replies, which often wrap it in Markdown fences or prose. */

export type JsonParse = { ok: true; value: unknown } | { ok: false; error: string };

const JSON_START = /^[[{"\-0-9tfn]/;
const FENCE = /```[ \t]*([A-Za-z0-9_-]*)[ \t]*\r?\n([\s\S]*?)\r?\n?[ \t]*```/g;

/** Strip a fence that wraps the whole text (any or no language tag, any case). */
function unwrapWholeFence(text: string): string | undefined {
  const m = /^```[ \t]*[A-Za-z0-9_-]*[ \t]*\r?\n?([\s\S]*?)\r?\n?[ \t]*```$/.exec(text);
  return m?.[1]?.trim();
}

/**
 * Parse a value as JSON: objects and arrays are used as they are; strings are parsed after removing a
 * surrounding Markdown fence. With `extract`, a reply like "Here you go: ```json {...}```" yields the first
 * fenced block that parses, then the first balanced {...} or [...] span that parses.
 */
export function parseJsonLoose(value: unknown, extract = true): JsonParse {
  if (value !== null && typeof value === 'object') return { ok: true, value };
  if (typeof value !== 'string') return { ok: false, error: `cannot read a ${typeof value} as JSON text` };
  const text = value.trim();
  const whole = text.startsWith('```') ? (unwrapWholeFence(text) ?? text) : text;
  let firstError: string;
  // Only try a whole-text parse when it can be JSON: a thrown SyntaxError costs microseconds per prose reply.
  if (whole !== '' && JSON_START.test(whole)) {
    try {
      return { ok: true, value: JSON.parse(whole) };
    } catch (err) {
      firstError = errorMessage(err);
    }
  } else
    firstError = whole === '' ? 'empty output' : `unexpected text at the start: ${JSON.stringify(whole.slice(0, 20))}`;
  if (!extract) return { ok: false, error: firstError };
  if (!text.includes('{') && !text.includes('[')) return { ok: false, error: firstError };
  for (const m of text.matchAll(FENCE)) {
    try {
      return { ok: true, value: JSON.parse((m[2] ?? '').trim()) };
    } catch {
      // try the next block
    }
  }
  const span = firstBalancedJson(text);
  if (span !== undefined) return { ok: true, value: span };
  return { ok: false, error: firstError };
}

/** The first {...} or [...] substring that parses as JSON (string-aware bracket matching). */
function firstBalancedJson(text: string): unknown {
  for (let start = 0; start < text.length; start++) {
    const open = text[start];
    if (open !== '{' && open !== '[') continue;
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const ch = text[i];
      if (inString) {
        if (ch === '\\') i++;
        else if (ch === '"') inString = false;
        continue;
      }
      if (ch === '"') inString = true;
      else if (ch === '{' || ch === '[') depth++;
      else if (ch === '}' || ch === ']') {
        depth--;
        if (depth === 0) {
          try {
            return JSON.parse(text.slice(start, i + 1));
          } catch {
            break;
          }
        }
      }
    }
  }
  return undefined;
}

/** JSON-pointer-like path for messages: $.a.b[2]. */
export function joinPath(base: string, key: string | number): string {
  return typeof key === 'number'
    ? `${base}[${key}]`
    : /^[A-Za-z_$][\w$]*$/.test(key)
      ? `${base}.${key}`
      : `${base}[${JSON.stringify(key)}]`;
}

/** Deep equality for JSON values (numbers by value, object key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao);
  if (ak.length !== Object.keys(bo).length) return false;
  for (const k of ak) if (!Object.hasOwn(bo, k) || !jsonEqual(ao[k], bo[k])) return false;
  return true;
}

/**
 * Maximum bipartite matching (Kuhn's algorithm): how many left items can be paired with distinct right
 * items when `fits(l, r)` says which pairs are allowed. Returns the pairing (left index -> right index).
 * Greedy first-fit is wrong for overlapping patterns, so order-free comparisons use this.
 */
export function maxMatching(leftCount: number, rightCount: number, fits: (l: number, r: number) => boolean): number[] {
  const adj: number[][] = [];
  for (let l = 0; l < leftCount; l++) {
    const row: number[] = [];
    for (let r = 0; r < rightCount; r++) if (fits(l, r)) row.push(r);
    adj.push(row);
  }
  const rightOwner = new Array<number>(rightCount).fill(-1);
  const leftMatch = new Array<number>(leftCount).fill(-1);
  const tryAssign = (l: number, seen: boolean[]): boolean => {
    for (const r of itemAt(adj, l)) {
      if (seen[r]) continue;
      seen[r] = true;
      const owner = itemAt(rightOwner, r);
      if (owner === -1 || tryAssign(owner, seen)) {
        rightOwner[r] = l;
        leftMatch[l] = r;
        return true;
      }
    }
    return false;
  };
  for (let l = 0; l < leftCount; l++) tryAssign(l, new Array<boolean>(rightCount).fill(false));
  return leftMatch;
}
