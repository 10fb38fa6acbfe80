import { errorMessage } from '@aeh/harness/errors';
import { invalidUtf8Offset } from '@aeh/harness/utf8';
import type { ApiApp } from './context.js';
import { ApiError } from './errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** In a `u` regex surrogate pairs are one code point, so only unpaired halves match. */
const LONE_SURROGATE = /\p{Cs}/u;

/** The first key that could reach an object's prototype, with its path, or null. */
function forbiddenKey(value: unknown, path: string): string | null {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = forbiddenKey(value[i], `${path}.${i}`);
      if (found) return found;
    }
    return null;
  }
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'string' && LONE_SURROGATE.test(value))
      return `${path}: a lone UTF-16 surrogate (\\ud800-\\udfff escape)`;
    return null;
  }
  for (const [key, child] of Object.entries(value)) {
    if (key === '__proto__') return `${path}.__proto__: the key __proto__ is not allowed`;
    if (key === 'constructor' && child !== null && typeof child === 'object' && 'prototype' in child) {
      return `${path}.constructor.prototype: the key is not allowed`;
    }
    const found = forbiddenKey(child, `${path}.${key}`);
    if (found) return found;
  }
  return null;
}

/**
 * Parse JSON bodies strictly: the bytes must be UTF-8 (invalid bytes are a 400 naming the offset, never replaced
 * with U+FFFD and accepted), strings must be well-formed Unicode, and no key may reach a prototype
 * (`__proto__`, `constructor.prototype`): 400 naming the field path. Replaces Fastify's lenient default parser.
 */
export function registerStrictJsonParser(app: ApiApp): void {
  app.removeContentTypeParser('application/json');
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
    const forbidden = forbiddenKey(parsed, 'body');
    if (forbidden) {
      const [path = forbidden] = forbidden.split(':');
      return done(
        new ApiError(400, 'forbidden_key', forbidden, [{ path, message: forbidden.slice(path.length + 2) }]),
        undefined,
      );
    }
    return done(null, parsed);
  });
}
