import { errorMessage } from '@aeh/harness/errors';
import { invalidUtf8Offset } from '@aeh/harness/utf8';
import type { ApiApp } from './context.js';
import { ApiError } from './errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** In a `u` regex surrogate pairs are one code point, so only unpaired halves match. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Containers nested deeper than this are refused. API bodies are two levels deep; the check also bounds the
 * recursive walk below, which a 64 KiB body of `[[[[...` (30 000 levels) drove into a stack overflow (a 500).
 */
export const MAX_BODY_DEPTH = 64;

/** Why a parsed body is refused, with the field path at fault. */
interface BodyProblem {
  readonly code: 'forbidden_key' | 'too_deep' | 'duplicate_key';
  readonly path: string;
  readonly message: string;
}

/** The first key that could reach an object's prototype, lone surrogate or over-deep container, or null. */
function forbiddenKey(value: unknown, path: string, depth = 1): BodyProblem | null {
  if (value !== null && typeof value === 'object' && depth > MAX_BODY_DEPTH) {
    return { code: 'too_deep', path, message: `nested deeper than ${MAX_BODY_DEPTH} levels` };
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = forbiddenKey(value[i], `${path}.${i}`, depth + 1);
      if (found) return found;
    }
    return null;
  }
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'string' && LONE_SURROGATE.test(value))
      return { code: 'forbidden_key', path, message: 'a lone UTF-16 surrogate (\\ud800-\\udfff escape)' };
    return null;
  }
  for (const [key, child] of Object.entries(value)) {
    if (key === '__proto__') {
      return { code: 'forbidden_key', path: `${path}.__proto__`, message: 'the key __proto__ is not allowed' };
    }
    if (key === 'constructor' && child !== null && typeof child === 'object' && 'prototype' in child) {
      return { code: 'forbidden_key', path: `${path}.constructor.prototype`, message: 'the key is not allowed' };
    }
    const found = forbiddenKey(child, `${path}.${key}`, depth + 1);
    if (found) return found;
  }
  return null;
}

/** One open container while scanning: an object's keys so far and its current key, or an array's index. */
type Frame =
  | { kind: 'object'; keys: Set<string>; key: string | null; atKey: boolean }
  | { kind: 'array'; index: number };

/**
 * The first key that appears twice in one object of valid JSON `text`, as a body problem, or null. JSON.parse keeps
 * the last of two equal keys while a proxy or firewall in front may read the first (`{"mode":"baseline",
 * "mode":"protected"}`), so an ambiguous body is refused rather than one reading picked. Keys are compared decoded
 * (`"\u006dode"` is `"mode"`). A single pass over the text with an explicit stack: no recursion, whatever the depth.
 */
export function duplicateKey(text: string): BodyProblem | null {
  const stack: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      let end = i + 1;
      while (text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c /* \ */ ? 2 : 1;
      const top = stack.at(-1);
      if (top?.kind === 'object' && top.atKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        top.key = key;
        top.atKey = false;
        if (top.keys.has(key)) {
          const path = `body${stack.map((f) => (f.kind === 'array' ? `.${f.index}` : `.${f.key}`)).join('')}`;
          return { code: 'duplicate_key', path, message: 'the key appears twice in one object' };
        }
        top.keys.add(key);
      }
      i = end;
    } else if (ch === 0x7b /* { */) stack.push({ kind: 'object', keys: new Set(), key: null, atKey: true });
    else if (ch === 0x5b /* [ */) stack.push({ kind: 'array', index: 0 });
    else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) stack.pop();
    else if (ch === 0x2c /* , */) {
      const top = stack.at(-1);
      if (top?.kind === 'object') top.atKey = true;
      else if (top) top.index += 1;
    }
  }
  return null;
}

/**
 * Parse JSON bodies strictly: the bytes must be UTF-8 (invalid bytes are a 400 naming the offset, never replaced
 * with U+FFFD and accepted), strings must be well-formed Unicode, and no key may reach a prototype
 * (`__proto__`, `constructor.prototype`), no object may hold a key twice, and nothing may nest deeper than 64 levels:
 * 400 naming the field path.
 * Replaces Fastify's lenient default parsers (JSON and text/plain).
 */
export function registerStrictJsonParser(app: ApiApp): void {
  // Every default parser goes, text/plain too: a body that is not application/json is 415 (docs/soclab/api.md),
  // never a string handed to validation (422), and JSON sent as text/plain (a type a cross-site form may send
  // without a CORS preflight) is not read.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    const bytes = body as Buffer;
    if (bytes.length === 0) return done(new ApiError(400, 'invalid_json', 'body: empty JSON body'), undefined);
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      const at = invalidUtf8Offset(bytes);
      return done(new ApiError(400, 'invalid_utf8', `body: not valid UTF-8 (byte ${at})`), undefined);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return done(new ApiError(400, 'invalid_json', `body: ${errorMessage(error)}`), undefined);
    }
    const problem = forbiddenKey(parsed, 'body') ?? duplicateKey(text);
    if (problem) {
      const { code, path, message } = problem;
      return done(new ApiError(400, code, `${path}: ${message}`, [{ path, message }]), undefined);
    }
    return done(null, parsed);
  });
}
