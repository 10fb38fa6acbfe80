import { errorMessage } from '../../core/errors.js';
import { type CompiledJsonPath, compileJsonPath, JsonPathError } from './json-path.js';

/**
 * `{{ ... }}` templates for adapter requests (URL, headers, query, body, command arguments).
 *
 * An expression is a path from one of the roots `input`, `vars`, `env`, `test`, `repeat`, `attempt`
 * (`{{input}}`, `{{input.question}}`, `{{vars.items[0]}}`, `{{env.API_KEY}}`, `{{test.id}}`), optionally followed by
 * filters: `| json` (JSON text), `| urlencode` and `| raw`. In a URL (compileUrlTemplate) values in the path, query and
 * fragment are percent-encoded by default, so `{{input}}` = `../../admin` stays one segment; `| raw` inserts the value
 * as it is, for templates that mean to build a path. A value that is exactly one expression keeps its type when
 * rendered into a JSON body (`"{{input}}"` with an object input becomes the object); inside text, objects render
 * as JSON. A path that does not resolve is an error, never silently an empty string.
 *
 * @example
 *   const t = compileTemplate({ question: '{{input}}', user: '{{vars.user}}' }, 'body');
 *   t.render({ input: 'hi', vars: { user: 'ann' } }); // { question: 'hi', user: 'ann' }
 */

export const TEMPLATE_ROOTS = ['input', 'vars', 'env', 'test', 'repeat', 'attempt'] as const;
export type TemplateRoot = (typeof TEMPLATE_ROOTS)[number];
export type TemplateScope = Partial<Record<TemplateRoot, unknown>>;

const FILTERS = ['json', 'urlencode', 'raw'] as const;
type Filter = (typeof FILTERS)[number];

/** A template mistake; `where` is the field path of the option that holds it (e.g. `headers.x-user`). */
export class TemplateError extends Error {
  readonly code = 'AEH_ERR_TEMPLATE';
  override name = 'TemplateError';
}

interface Expression {
  text: string;
  root: TemplateRoot;
  path: CompiledJsonPath | null;
  /** First key under the root (`API_KEY` in `env.API_KEY`). */
  firstKey: string | null;
  filters: Filter[];
}

type Part = string | Expression;

const EXPR = /\{\{(.*?)\}\}/gs;

function parseExpression(raw: string, where: string): Expression {
  const [head, ...filterTexts] = raw.split('|').map((s) => s.trim());
  const [, name, tail = ''] = /^([A-Za-z_]+)(.*)$/s.exec(head ?? '') ?? [];
  if (name === undefined) throw new TemplateError(`${where}: empty template expression '{{${raw}}}'`);
  const root = name as TemplateRoot;
  if (!TEMPLATE_ROOTS.includes(root)) {
    throw new TemplateError(
      `${where}: unknown template variable '${name}' in '{{${raw}}}' (expected one of ${TEMPLATE_ROOTS.join(', ')})`,
    );
  }
  let path: CompiledJsonPath | null = null;
  const rest = tail.trim();
  if (rest !== '') {
    try {
      path = compileJsonPath(`$${rest}`);
    } catch (err) {
      const msg = err instanceof JsonPathError ? err.message : String(err);
      throw new TemplateError(`${where}: bad path in '{{${raw}}}': ${msg}`);
    }
  }
  const filters = filterTexts.map((f) => {
    if (!FILTERS.includes(f as Filter)) {
      throw new TemplateError(
        `${where}: unknown filter '${f}' in '{{${raw}}}' (expected ${FILTERS.slice(0, -1).join(', ')} or ${FILTERS.at(-1)})`,
      );
    }
    return f as Filter;
  });
  const first = /^\.([A-Za-z0-9_$-]+)|^\[\s*['"](.*?)['"]\s*\]/.exec(rest);
  return { text: raw.trim(), root, path, firstKey: first?.[1] ?? first?.[2] ?? null, filters };
}

function parseString(text: string, where: string): Part[] {
  const parts: Part[] = [];
  let last = 0;
  for (const m of text.matchAll(EXPR)) {
    const at = m.index ?? 0;
    if (at > last) parts.push(text.slice(last, at));
    parts.push(parseExpression(m[1] ?? '', where));
    last = at + m[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}

function resolve(expr: Expression, scope: TemplateScope, where: string): unknown {
  if (!(expr.root in scope)) throw new TemplateError(`${where}: '{{${expr.text}}}' has no value here`);
  let value: unknown = scope[expr.root];
  if (expr.path) {
    const found = expr.path.all(value);
    if (found.length === 0) throw new TemplateError(`${where}: '{{${expr.text}}}' did not resolve to a value`);
    value = expr.path.multi ? found : found[0];
  } else if (value === undefined) {
    throw new TemplateError(`${where}: '{{${expr.text}}}' did not resolve to a value`);
  }
  for (const f of expr.filters) {
    if (f === 'json') value = JSON.stringify(value);
    else if (f === 'urlencode') value = encodeURIComponent(asText(value));
    // `raw` changes nothing here: it only turns off the URL template's default encoding.
  }
  return value;
}

function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

type Node =
  | { kind: 'literal'; value: unknown }
  | { kind: 'string'; parts: Part[]; where: string }
  | { kind: 'array'; items: Node[] }
  | { kind: 'object'; entries: [Node, Node][] };

function compileNode(value: unknown, where: string): Node {
  if (typeof value === 'string') {
    const parts = parseString(value, where);
    if (parts.every((p) => typeof p === 'string')) return { kind: 'literal', value };
    return { kind: 'string', parts, where };
  }
  if (Array.isArray(value)) return { kind: 'array', items: value.map((v, i) => compileNode(v, `${where}[${i}]`)) };
  if (value !== null && typeof value === 'object') {
    return {
      kind: 'object',
      entries: Object.entries(value).map(([k, v]) => [
        compileNode(k, `${where}.${k}`),
        compileNode(v, `${where}.${k}`),
      ]),
    };
  }
  return { kind: 'literal', value };
}

function renderNode(node: Node, scope: TemplateScope, keepTypes: boolean): unknown {
  switch (node.kind) {
    case 'literal':
      return node.value;
    case 'string': {
      const [only] = node.parts;
      if (keepTypes && node.parts.length === 1 && only !== undefined && typeof only !== 'string') {
        return resolve(only, scope, node.where);
      }
      let out = '';
      for (const p of node.parts) out += typeof p === 'string' ? p : asText(resolve(p, scope, node.where));
      return out;
    }
    case 'array':
      return node.items.map((n) => renderNode(n, scope, keepTypes));
    case 'object': {
      const obj: Record<string, unknown> = {};
      for (const [k, v] of node.entries) obj[asText(renderNode(k, scope, false))] = renderNode(v, scope, keepTypes);
      return obj;
    }
  }
}

export interface CompiledTemplate<T = unknown> {
  /** Names used under `env.` (so their values can be treated as secrets). */
  readonly envNames: readonly string[];
  /** True when the template contains at least one expression. */
  readonly dynamic: boolean;
  /** Render with typed substitution (JSON bodies). Throws TemplateError on an unresolved variable. */
  render(scope: TemplateScope): T;
  /** Render with every substitution as text (URLs, headers, query, arguments). */
  renderText(scope: TemplateScope): T;
}

function collectEnv(node: Node, out: Set<string>): void {
  if (node.kind === 'string') {
    for (const p of node.parts) {
      if (typeof p !== 'string' && p.root === 'env' && p.firstKey) out.add(p.firstKey);
    }
  } else if (node.kind === 'array') {
    for (const n of node.items) collectEnv(n, out);
  } else if (node.kind === 'object') {
    for (const [k, v] of node.entries) {
      collectEnv(k, out);
      collectEnv(v, out);
    }
  }
}

function isDynamic(node: Node): boolean {
  if (node.kind === 'string') return true;
  if (node.kind === 'array') return node.items.some(isDynamic);
  if (node.kind === 'object') return node.entries.some(([k, v]) => isDynamic(k) || isDynamic(v));
  return false;
}

/** Parse a template (string, array or object tree) once; `where` names the option in error messages. */
export function compileTemplate<T = unknown>(value: T, where: string): CompiledTemplate<T> {
  const node = compileNode(value, where);
  const env = new Set<string>();
  collectEnv(node, env);
  return {
    envNames: [...env],
    dynamic: isDynamic(node),
    render: (scope) => renderNode(node, scope, true) as T,
    renderText: (scope) => renderNode(node, scope, false) as T,
  };
}

type UrlPart = 'origin' | 'path' | 'query' | 'fragment';

/**
 * Which part of the URL each expression lands in, from the literal text around it: anything before the first `/`
 * after the authority is the origin (a `{{env.API_BASE}}` base URL, a host), then path, query (`?`), fragment (`#`).
 */
function urlParts(parts: Part[]): UrlPart[] {
  const out: UrlPart[] = [];
  let state: UrlPart = 'origin';
  let seen = '';
  for (const p of parts) {
    if (typeof p !== 'string') {
      out.push(state);
      seen += 'x';
      continue;
    }
    for (const ch of p) {
      if (state === 'origin') {
        // `scheme://`: the two slashes belong to the origin; the next slash starts the path.
        if (ch === '/' && !/:\/?$/.test(seen)) state = 'path';
        else if (ch === '?') state = 'query';
        else if (ch === '#') state = 'fragment';
      } else if (state === 'path') {
        if (ch === '?') state = 'query';
        else if (ch === '#') state = 'fragment';
      } else if (state === 'query' && ch === '#') state = 'fragment';
      seen += ch;
    }
  }
  return out;
}

/**
 * Compile a request URL template. Values landing in the path, query or fragment are percent-encoded (RFC 3986
 * unreserved characters kept), so a case input can neither add path segments (`../../admin`), nor query
 * parameters (`&admin=1`), nor change the host; a value that would be a whole `.` or `..` segment is refused
 * (URL parsers resolve it, even percent-encoded). `| raw` inserts a value unencoded, `| urlencode` encodes it
 * once (never twice). Values before the path (`{{env.API_BASE}}/ask`, a templated host) are inserted as they are.
 */
export function compileUrlTemplate(value: string, where: string): CompiledTemplate<string> {
  const base = compileTemplate(value, where);
  const parts = parseString(value, where);
  const places = urlParts(parts);
  const render = (scope: TemplateScope): string => {
    let out = '';
    let n = 0;
    const inPath: { start: number; expr: Expression }[] = [];
    for (const p of parts) {
      if (typeof p === 'string') {
        out += p;
        continue;
      }
      const place = places[n++];
      const text = asText(resolve(p, scope, where));
      if (place === 'origin' || p.filters.includes('raw') || p.filters.includes('urlencode')) {
        out += text;
        continue;
      }
      if (place === 'path') inPath.push({ start: out.length, expr: p });
      out += encodeURIComponent(text);
    }
    // A segment made (partly) of values that reads `.` or `..` is resolved away by every URL parser.
    for (const { start, expr } of inPath) {
      const from = out.lastIndexOf('/', start - 1) + 1;
      const rest = out.slice(start).search(/[/?#]/);
      const segment = out.slice(from, rest < 0 ? out.length : start + rest);
      if (/^\.{1,2}$/.test(segment)) {
        throw new TemplateError(
          `${where}: '{{${expr.text}}}' makes the URL path segment '${segment}', which would move the request to another path; refused (use '| raw' if that is meant)`,
        );
      }
    }
    return out;
  };
  return { envNames: base.envNames, dynamic: base.dynamic, render, renderText: render };
}

/**
 * Report template syntax errors as schema issues (so `harness validate` shows them with file:line:col):
 * `check(ctx, value, ['body'])` adds one issue at that option path if the template cannot be parsed.
 */
export function checkTemplate(
  ctx: { addIssue(issue: { code: 'custom'; path: PropertyKey[]; message: string }): void },
  value: unknown,
  path: PropertyKey[],
): void {
  if (value === undefined) return;
  const where = path.join('.');
  try {
    compileTemplate(value, where);
  } catch (err) {
    const message = errorMessage(err);
    const at = /^([^:]+): /.exec(message);
    const field = at?.[1];
    // The message names the innermost field (`body.q`); keep the path relative to the option given.
    const inner =
      field !== undefined && field !== where && field.startsWith(`${where}`)
        ? field.slice(where.length).replace(/^\./, '')
        : '';
    ctx.addIssue({
      code: 'custom',
      path: inner ? [...path, ...inner.split(/\.|\[(\d+)\]/).filter((s) => s !== undefined && s !== '')] : path,
      message: at ? message.slice(at[0].length) : message,
    });
  }
}
