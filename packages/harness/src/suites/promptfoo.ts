import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { errorMessage } from '../core/errors.js';
import { CsvParser } from './csv.js';
import { type PathKey, PositionedDocument, type SuiteIssue } from './positions.js';

/**
 * promptfoo configs (`promptfooconfig.yaml`) read as harness suites. The format followed is promptfoo's
 * documented one (promptfoo.dev/docs/configuration/reference): `prompts` × `providers` × `tests`, each test
 * with `vars` and `assert`, `defaultTest` merged into every test, `file://` prompt and test files. One case is
 * made per test × prompt × provider, with the prompt rendered from the vars as its input and the vars kept.
 * Each assertion becomes an evaluator; an assertion with no equivalent is listed with its line, never dropped
 * silently. The mapping table is in docs/migrating.md.
 */

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** True for a promptfoo config rather than a harness suite: it has `prompts` or `providers` and no `agent`. */
export function isPromptfooConfig(raw: unknown): raw is Json {
  return isObject(raw) && !('agent' in raw) && ('prompts' in raw || 'providers' in raw);
}

export interface PromptfooConversion {
  /** A harness suite (version "1.0") as plain data. */
  suite: Json;
  /** Assertions, providers or prompt syntax with no equivalent, each with file:line:col and what to do. */
  unmapped: SuiteIssue[];
  /** Things converted approximately, for the import report. */
  notes: string[];
}

interface Source {
  doc: PositionedDocument;
  /** `key: true` points at the key itself (for fields that should not be there). */
  at(path: readonly PathKey[], message: string, key?: boolean): SuiteIssue;
}

interface PromptSpec {
  label: string;
  raw: string;
  at: (m: string) => SuiteIssue;
}

interface ProviderSpec {
  label: string;
  agent: { adapter: string; options: Json };
}

interface TestSpec {
  value: Json;
  source: Source;
  path: PathKey[];
}

/** Convert a parsed promptfoo config. `file` is the config's path (for file:// references and positions). */
export function convertPromptfoo(file: string, text: string): PromptfooConversion {
  const display = displayPath(file);
  const doc = new PositionedDocument(display, text);
  const main: Source = { doc, at: (p, m, key) => doc.issue(p, m, { key }) };
  const raw = doc.toJS();
  const unmapped: SuiteIssue[] = [];
  const notes: string[] = [];
  if (!isPromptfooConfig(raw)) {
    return {
      suite: {},
      unmapped: [main.at([], 'not a promptfoo config (expected prompts, providers and tests)')],
      notes,
    };
  }
  const baseDir = dirname(file);

  // Keys that change what is run or judged must convert or be listed; a few that only steer promptfoo's own
  // output are noted. Nothing is skipped silently.
  for (const key of Object.keys(raw)) {
    if (CONFIG_KEYS.has(key)) continue;
    if (IGNORED_CONFIG_KEYS.has(key)) notes.push(`${key}: promptfoo output setting, not used by the harness`);
    else unmapped.push(main.at([key], `'${key}' has no equivalent here; remove it or express it in the suite`, true));
  }
  const prompts = readPrompts(raw.prompts, baseDir, main, unmapped);
  const providers = readProviders(raw.providers, main, unmapped, notes);
  const defaults = readDefaultTest(raw.defaultTest, baseDir, main, unmapped);
  const tests = readTests(raw.tests, baseDir, main, unmapped);
  for (const t of defaults ? [defaults, ...tests] : tests) checkTestKeys(t, unmapped);

  const cases: Json[] = [];
  tests.forEach((t, ti) => {
    const vars = {
      ...(isObject(defaults?.value.vars) ? defaults.value.vars : {}),
      ...(isObject(t.value.vars) ? t.value.vars : {}),
    };
    const asserts: { a: unknown; source: Source; path: PathKey[] }[] = [
      ...(defaults && Array.isArray(defaults.value.assert)
        ? defaults.value.assert.map((a, i) => ({ a, source: defaults.source, path: [...defaults.path, 'assert', i] }))
        : []),
      ...(Array.isArray(t.value.assert)
        ? t.value.assert.map((a, i) => ({ a, source: t.source, path: [...t.path, 'assert', i] }))
        : []),
    ];
    const evaluators = asserts.flatMap(({ a, source, path }) => {
      const e = mapAssertion(a, vars, source, path, unmapped);
      return e ? [e] : [];
    });
    if (asserts.length === 0) {
      // promptfoo passes a test that asserts nothing; say so explicitly instead of letting nothing judge it.
      evaluators.push({ name: 'javascript_inline', options: { code: 'true' } });
      notes.push(`${t.source.at(t.path, '').file}: test ${ti + 1} has no assertions: it passes, as in promptfoo`);
    }
    const description = typeof t.value.description === 'string' ? t.value.description : undefined;
    prompts.forEach((p, pi) => {
      let input: string;
      try {
        input = renderTemplate(p.raw, vars);
      } catch (err) {
        unmapped.push(p.at(errorMessage(err)));
        return;
      }
      providers.forEach((v) => {
        const idParts = [`test-${ti + 1}`];
        if (prompts.length > 1) idParts.push(`prompt-${pi + 1}`);
        if (providers.length > 1) idParts.push(slug(v.label));
        const id = idParts.join('-');
        cases.push({
          id,
          name: [
            description ?? `test ${ti + 1}`,
            prompts.length > 1 ? p.label : '',
            providers.length > 1 ? v.label : '',
          ]
            .filter(Boolean)
            .join(' · '),
          input,
          evaluators,
          vars: providers.length > 1 ? { ...vars, provider: v.label } : vars,
          metadata: {
            ...(isObject(t.value.metadata) ? t.value.metadata : {}),
            promptfoo: { test: ti + 1, prompt: p.label, provider: v.label },
          },
        });
      });
    });
  });

  const [onlyProvider] = providers;
  const agent =
    providers.length === 1 && onlyProvider
      ? { ...onlyProvider.agent, label: onlyProvider.label }
      : {
          adapter: 'route',
          options: { by: 'provider', agents: Object.fromEntries(providers.map((v) => [v.label, v.agent])) },
          label: providers.map((v) => v.label).join(' | '),
        };
  const name =
    typeof raw.description === 'string' && raw.description.trim() ? raw.description.trim() : 'promptfoo-import';
  const suite: Json = {
    version: '1.0',
    name,
    description: `Imported from ${display} (promptfoo format)`,
    agent,
    metrics: ['success_rate', 'accuracy', 'latency', 'cost'],
    tests: cases,
  };
  return { suite, unmapped, notes };
}

const CONFIG_KEYS = new Set(['description', 'prompts', 'providers', 'tests', 'defaultTest']);
const IGNORED_CONFIG_KEYS = new Set([
  'outputPath',
  'sharing',
  'tags',
  'evaluateOptions',
  'writeLatestResults',
  'metadata',
]);
const HTTP_CONFIG_KEYS = new Set(['url', 'method', 'headers', 'body', 'transformResponse']);
const TEST_KEYS = new Set(['description', 'vars', 'assert', 'metadata']);
const ASSERT_KEYS = new Set(['type', 'value', 'threshold', 'weight', 'metric']);

/** A test (or defaultTest) key that would change the verdict (options.transform, threshold, providers...) is listed. */
function checkTestKeys(t: TestSpec, unmapped: SuiteIssue[]): void {
  for (const key of Object.keys(t.value)) {
    if (TEST_KEYS.has(key)) continue;
    unmapped.push(
      t.source.at(
        [...t.path, key],
        `test field '${key}' has no equivalent here; the case would be judged differently`,
        true,
      ),
    );
  }
}

// ---------------------------------------------------------------------------------------------------------
// Prompts, providers, tests

function readPrompts(value: unknown, baseDir: string, src: Source, unmapped: SuiteIssue[]): PromptSpec[] {
  const list = value === undefined ? ['{{prompt}}'] : Array.isArray(value) ? value : [value];
  const out: PromptSpec[] = [];
  list.forEach((p, i) => {
    const path: PathKey[] = Array.isArray(value) ? ['prompts', i] : ['prompts'];
    const at = (m: string) => src.at(path, m);
    if (typeof p === 'string') {
      if (p.startsWith('file://')) {
        const f = resolve(baseDir, p.slice(7));
        if (!/\.(txt|md|j2|prompt)$/i.test(f)) {
          unmapped.push(
            at(`prompt file '${p}': only text prompt files (.txt, .md) convert; write the prompt text instead`),
          );
          return;
        }
        if (!existsSync(f)) {
          unmapped.push(at(`prompt file not found: ${f}`));
          return;
        }
        out.push({ label: p.slice(7), raw: readFileSync(f, 'utf8'), at });
      } else out.push({ label: p.length > 40 ? `${p.slice(0, 39)}…` : p, raw: p, at });
    } else if (isObject(p) && typeof p.raw === 'string') {
      out.push({ label: String(p.label ?? p.id ?? `prompt ${i + 1}`), raw: p.raw, at });
    } else unmapped.push(at('prompt: expected text, file://<file>.txt, or { raw, label }'));
  });
  return out;
}

function readProviders(value: unknown, src: Source, unmapped: SuiteIssue[], notes: string[]): ProviderSpec[] {
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  const out: ProviderSpec[] = [];
  if (list.length === 0)
    unmapped.push(src.at(['providers'], 'no providers: add at least one (e.g. echo or an http provider)'));
  list.forEach((p, i) => {
    const path: PathKey[] = Array.isArray(value) ? ['providers', i] : ['providers'];
    const id = typeof p === 'string' ? p : isObject(p) && typeof p.id === 'string' ? p.id : undefined;
    const config = isObject(p) && isObject(p.config) ? p.config : {};
    const label = isObject(p) && typeof p.label === 'string' ? p.label : (id ?? `provider ${i + 1}`);
    if (!id) {
      unmapped.push(src.at(path, 'provider: expected an id (echo, http, https://..., openai:<model>, ...)'));
      return;
    }
    if (isObject(p)) {
      const extra = Object.keys(p).find((k) => !['id', 'label', 'config'].includes(k));
      if (extra !== undefined) {
        unmapped.push(src.at([...path, extra], `provider field '${extra}' has no equivalent here`, true));
        return;
      }
    }
    if (id === 'echo') {
      out.push({ label, agent: { adapter: 'echo', options: {} } });
      return;
    }
    if (id === 'http' || id === 'https' || /^https?:\/\//.test(id)) {
      const agent = httpAgent(id, config, src, path, unmapped);
      if (agent) out.push({ label, agent });
      return;
    }
    const model =
      /^(openai|anthropic|google|gemini|ollama|azure|azureopenai|mistral)(?::(?:chat|messages|completion))?:(.+)$/.exec(
        id,
      );
    const [, family, modelName] = model ?? [];
    if (family !== undefined && modelName !== undefined) {
      const renamed: Record<string, string> = { google: 'gemini', azureopenai: 'azure_openai', azure: 'azure_openai' };
      const provider = renamed[family] ?? family;
      const options: Json = { provider, model: modelName, prompt: '{{input}}' };
      if (typeof config.temperature === 'number') options.temperature = config.temperature;
      if (typeof config.max_tokens === 'number') options.max_output_tokens = config.max_tokens;
      out.push({ label, agent: { adapter: 'model', options } });
      notes.push(
        `provider ${id}: runs through the model adapter (provider ${provider}); set its API key as for promptfoo`,
      );
      return;
    }
    unmapped.push(
      src.at(
        path,
        `provider '${id}' has no equivalent here: use echo, an http provider, a model provider (openai:<model>, anthropic:<model>...), or write an adapter: module agent`,
      ),
    );
  });
  return out;
}

/** promptfoo's http provider → the http adapter: url, method, headers, body (`{{prompt}}` is the input), transformResponse. */
function httpAgent(
  id: string,
  config: Json,
  src: Source,
  path: PathKey[],
  unmapped: SuiteIssue[],
): ProviderSpec['agent'] | null {
  const url = /^https?:\/\//.test(id) ? id : config.url;
  if (typeof url !== 'string') {
    unmapped.push(src.at([...path, 'config', 'url'], 'http provider: config.url is required'));
    return null;
  }
  const extra = Object.keys(config).find((k) => !HTTP_CONFIG_KEYS.has(k));
  if (extra !== undefined) {
    unmapped.push(src.at([...path, 'config', extra], `http provider: config.${extra} has no equivalent here`, true));
    return null;
  }
  const options: Json = { url: toHarnessTemplate(url) };
  if (typeof config.method === 'string') options.method = config.method.toUpperCase();
  if (isObject(config.headers)) {
    options.headers = Object.fromEntries(
      Object.entries(config.headers).map(([k, v]) => [k, toHarnessTemplate(String(v))]),
    );
  }
  if (config.body !== undefined) options.body = mapTemplates(config.body);
  else options.body = { prompt: '{{input}}' };
  const transform = config.transformResponse;
  if (transform !== undefined) {
    const mapped = typeof transform === 'string' ? transformToPath(transform) : undefined;
    if (mapped === undefined) {
      unmapped.push(
        src.at(
          [...path, 'config', 'transformResponse'],
          "transformResponse: only a path into the reply converts (json.a.b[0], (json) => json.a, or 'text'); for anything else map fields with response: { output: $.path }",
        ),
      );
    } else if (mapped !== 'text') options.response = { output: mapped };
    else options.stream = false;
  }
  return { adapter: 'http', options };
}

/** `json.output`, `json["a"][0].b`, `(json) => json.x`, `(json, text) => json.x`, `text` → a JSON path ($.x), or 'text'. */
export function transformToPath(expr: string): string | undefined {
  let e = expr.trim();
  const arrow = /^\(?\s*json\s*(?:,\s*text\s*)?(?:,\s*context\s*)?\)?\s*=>\s*(.+)$/s.exec(e);
  if (arrow?.[1] !== undefined) e = arrow[1].trim();
  if (e === 'text') return 'text';
  if (e === 'json') return '$';
  const m = /^json((?:\.[A-Za-z_$][\w$]*|\[\d+\]|\[(?:'[^']*'|"[^"]*")\])+)$/.exec(e);
  return m?.[1] === undefined ? undefined : `$${m[1].replace(/\["([^"]*)"\]/g, "['$1']")}`;
}

function readDefaultTest(value: unknown, baseDir: string, src: Source, unmapped: SuiteIssue[]): TestSpec | null {
  if (value === undefined) return null;
  if (typeof value === 'string' && value.startsWith('file://')) {
    const loaded = loadFile(resolve(baseDir, value.slice(7)), src, ['defaultTest'], unmapped);
    if (loaded && isObject(loaded.data)) return { value: loaded.data, source: loaded.source, path: [] };
    return null;
  }
  if (isObject(value)) return { value, source: src, path: ['defaultTest'] };
  unmapped.push(src.at(['defaultTest'], 'defaultTest: expected an object or file://<file>.yaml'));
  return null;
}

function readTests(value: unknown, baseDir: string, src: Source, unmapped: SuiteIssue[]): TestSpec[] {
  const out: TestSpec[] = [];
  const fromFile = (ref: string, path: PathKey[]) => {
    const f = resolve(baseDir, ref.slice(7));
    if (/\.csv$/i.test(f)) {
      out.push(...csvTests(f, src, path, unmapped));
      return;
    }
    const loaded = loadFile(f, src, path, unmapped);
    if (!loaded) return;
    if (!Array.isArray(loaded.data)) {
      unmapped.push(src.at(path, `${ref}: expected a list of tests`));
      return;
    }
    loaded.data.forEach((t, i) => {
      if (isObject(t)) out.push({ value: t, source: loaded.source, path: [i] });
      else unmapped.push(loaded.source.at([i], 'test: expected an object with vars and assert'));
    });
  };
  if (typeof value === 'string') {
    if (value.startsWith('file://')) fromFile(value, ['tests']);
    else unmapped.push(src.at(['tests'], 'tests: expected a list or file://<file>.yaml|.json|.csv'));
    return out;
  }
  if (!Array.isArray(value)) {
    if (value !== undefined) unmapped.push(src.at(['tests'], 'tests: expected a list'));
    return out;
  }
  value.forEach((t, i) => {
    if (typeof t === 'string' && t.startsWith('file://')) fromFile(t, ['tests', i]);
    else if (isObject(t)) out.push({ value: t, source: src, path: ['tests', i] });
    else unmapped.push(src.at(['tests', i], 'test: expected an object with vars and assert, or file://...'));
  });
  return out;
}

function loadFile(
  file: string,
  src: Source,
  path: PathKey[],
  unmapped: SuiteIssue[],
): { data: unknown; source: Source } | null {
  if (!existsSync(file)) {
    unmapped.push(src.at(path, `file not found: ${file}`));
    return null;
  }
  const text = readFileSync(file, 'utf8');
  const doc = new PositionedDocument(displayPath(file), text);
  const problems = doc.syntaxIssues();
  if (problems.length > 0) {
    unmapped.push(...problems);
    return null;
  }
  return {
    data: /\.json$/i.test(file) ? JSON.parse(text) : doc.toJS(),
    source: { doc, at: (p, m, key) => doc.issue(p, m, { key }) },
  };
}

/** promptfoo CSV tests: columns are vars; `__expected` (and `__expected1`...) hold assertions; `__description`. */
function csvTests(file: string, src: Source, path: PathKey[], unmapped: SuiteIssue[]): TestSpec[] {
  if (!existsSync(file)) {
    unmapped.push(src.at(path, `file not found: ${file}`));
    return [];
  }
  const parser = new CsvParser();
  const records = [...parser.feed(readFileSync(file, 'utf8')), ...parser.end()];
  const [head, ...body] = records;
  const header = head?.fields ?? [];
  const display = displayPath(file);
  const out: TestSpec[] = [];
  body.forEach((record) => {
    const row = record.fields;
    if (row.length === 1 && row[0] === '') return;
    const vars: Json = {};
    const assert: unknown[] = [];
    let description: string | undefined;
    header.forEach((col, c) => {
      const cell = row[c] ?? '';
      if (/^__expected\d*$/.test(col)) {
        if (cell !== '') assert.push(csvAssertion(cell));
      } else if (col === '__description') description = cell;
      else if (!col.startsWith('__')) vars[col] = cell;
    });
    const line = record.line;
    const doc = new PositionedDocument(display, '');
    out.push({
      value: { vars, assert, ...(description ? { description } : {}) },
      source: { doc, at: (p, m) => ({ file: display, line, col: 1, path: p.join('.'), message: m }) },
      path: [],
    });
  });
  return out;
}

/** `contains: foo`, `icontains:foo`, `regex: ^a`, `javascript: output.length > 3`, `grade: rubric`, or plain equals. */
function csvAssertion(cell: string): Json {
  const m = /^(not-)?([a-z-]+):\s*(.*)$/s.exec(cell);
  if (!m) return { type: 'equals', value: cell };
  const type = m[2] === 'grade' || m[2] === 'llm-rubric' ? 'llm-rubric' : m[2] === 'fn' ? 'javascript' : m[2];
  return { type: `${m[1] ?? ''}${type}`, value: m[3] };
}

// ---------------------------------------------------------------------------------------------------------
// Assertions

/**
 * One promptfoo assertion as a harness evaluator entry, or null (with an `unmapped` entry) when there is no
 * equivalent. A `not-` prefix becomes the harness's `not: true`; `weight` is kept; `threshold` is the
 * harness's pass threshold for scored checks (javascript), and the budget for latency (ms) and cost (USD).
 */
function mapAssertion(a: unknown, vars: Json, src: Source, path: PathKey[], unmapped: SuiteIssue[]): Json | null {
  if (!isObject(a) || typeof a.type !== 'string') {
    unmapped.push(src.at(path, 'assertion: expected { type, value }'));
    return null;
  }
  for (const key of Object.keys(a)) {
    if (!ASSERT_KEYS.has(key)) {
      unmapped.push(src.at([...path, key], `assertion field '${key}' has no equivalent here`, true));
      return null;
    }
  }
  const negated = a.type.startsWith('not-');
  const type = negated ? a.type.slice(4) : a.type;
  const value = renderValue(a.value, vars);
  const threshold = typeof a.threshold === 'number' ? a.threshold : undefined;
  const entry = (name: string, options: Json, extra: Json = {}): Json => ({
    name,
    options,
    ...(typeof a.weight === 'number' ? { weight: a.weight } : {}),
    ...(negated ? { not: true } : {}),
    ...extra,
  });
  const text = (v: unknown) => (typeof v === 'string' ? v : v === undefined ? undefined : JSON.stringify(v));
  const list = (v: unknown) => (Array.isArray(v) ? v.map((x) => String(x)) : typeof v === 'string' ? [v] : undefined);
  const need = (ok: boolean, what: string): boolean => {
    if (!ok) unmapped.push(src.at([...path, 'value'], `${a.type}: ${what}`));
    return ok;
  };
  switch (type) {
    case 'equals':
      if (isObject(value) || Array.isArray(value)) {
        return entry('json_match', { value, subset: false, ignore_order: false, extract: false });
      }
      if (!need(value !== undefined, 'needs a value')) return null;
      return entry('exact_match', { value: text(value), strip_whitespace: false });
    case 'contains':
    case 'icontains':
      if (!need(typeof value === 'string' || typeof value === 'number', 'needs a text value')) return null;
      return entry('contains', { substring: String(value), case_sensitive: type === 'contains' });
    case 'contains-all':
    case 'icontains-all':
    case 'contains-any':
    case 'icontains-any': {
      const needles = list(value);
      if (!need(needles !== undefined && needles.length > 0, 'needs a list of texts')) return null;
      return entry('contains', {
        substring: needles,
        mode: type.endsWith('any') ? 'any' : 'all',
        case_sensitive: !type.startsWith('i'),
      });
    }
    case 'starts-with':
      if (!need(typeof value === 'string', 'needs a text value')) return null;
      return entry('starts_with', { value, strip_whitespace: false });
    case 'regex':
      if (!need(typeof value === 'string', 'needs a pattern')) return null;
      return entry('regex_match', { pattern: value });
    case 'is-json':
      if (isObject(value)) return entry('json_schema', { schema: value, extract: false });
      return entry('is_json', { allow_fences: false });
    case 'contains-json':
      return entry('json_schema', { schema: isObject(value) ? value : {}, extract: true });
    case 'javascript': {
      if (typeof value !== 'string' || value.startsWith('file://')) {
        unmapped.push(
          src.at(
            [...path, 'value'],
            'javascript: only inline code converts; for a file use the javascript evaluator (module: ./check.js#name)',
          ),
        );
        return null;
      }
      return entry('javascript_inline', { code: value }, threshold !== undefined ? { threshold } : {});
    }
    case 'latency':
      if (!need(threshold !== undefined && threshold > 0, 'needs threshold (milliseconds)')) return null;
      return entry('latency_budget', { max: (threshold as number) / 1000 });
    case 'cost':
      if (!need(threshold !== undefined && threshold >= 0, 'needs threshold (USD)')) return null;
      return entry('cost_budget', { max: threshold as number });
    case 'llm-rubric':
      if (!need(typeof value === 'string' && value.length > 0, 'needs the rubric text')) return null;
      // promptfoo grades with OpenAI unless told otherwise; so does the import (change provider/model as needed).
      return entry('llm_rubric', { rubric: value, provider: 'openai', model: 'gpt-4.1-mini' });
    case 'similar':
      unmapped.push(
        src.at(
          path,
          'similar: needs an embedding model, which the harness does not call; use { type: llm-rubric } or a lexical stand-in (rouge_l, fuzzy_match) and check the threshold',
        ),
      );
      return null;
    default:
      unmapped.push(
        src.at(path, `assertion type '${a.type}' has no equivalent here; see docs/migrating.md for the mapped types`),
      );
      return null;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Templates

/** Render promptfoo's `{{ var }}` / `{{ var.path }}` placeholders; other Nunjucks syntax is refused. */
export function renderTemplate(template: string, vars: Json): string {
  if (/\{%|\{#/.test(template)) {
    throw new Error(
      'prompt uses Nunjucks tags ({% ... %}); only {{ var }} placeholders convert: render the prompt per test instead',
    );
  }
  return template.replace(/\{\{\s*([^}]*?)\s*\}\}/g, (whole, expr: string) => {
    const [, name, dump] = /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(\s*\|\s*dump)?$/.exec(expr) ?? [];
    if (name === undefined) {
      throw new Error(`prompt placeholder '${whole}': only {{ var }} and {{ var | dump }} convert`);
    }
    let v: unknown = vars;
    for (const k of name.split('.')) v = isObject(v) ? v[k] : undefined;
    if (v === undefined) throw new Error(`prompt placeholder '${whole}': no var '${name}' in this test`);
    return dump || typeof v !== 'string' ? JSON.stringify(v) : v;
  });
}

function renderValue(value: unknown, vars: Json): unknown {
  if (typeof value !== 'string' || !value.includes('{{')) return value;
  try {
    return renderTemplate(value, vars);
  } catch {
    return value;
  }
}

/** A promptfoo request template in harness syntax: `{{prompt}}` is the case input, `{{name}}` a case var. */
function toHarnessTemplate(s: string): string {
  return s.replace(/\{\{\s*([A-Za-z_$][\w$.]*)\s*\}\}/g, (_, name: string) =>
    name === 'prompt' ? '{{input}}' : name.startsWith('env.') ? `{{${name}}}` : `{{vars.${name}}}`,
  );
}

function mapTemplates(v: unknown): unknown {
  if (typeof v === 'string') return toHarnessTemplate(v);
  if (Array.isArray(v)) return v.map(mapTemplates);
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mapTemplates(x)]));
  return v;
}

function slug(s: string): string {
  return (
    s
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 40) || 'provider'
  );
}

function displayPath(abs: string): string {
  const rel = relative(process.cwd(), abs);
  return rel && !rel.startsWith('..') ? rel : abs;
}

/** The YAML text of a converted suite, with a header saying where it came from. */
export async function suiteYaml(conversion: PromptfooConversion, from: string): Promise<string> {
  const { stringify } = await import('yaml');
  const header = [
    `# Converted from ${from} (promptfoo) by harness import promptfoo.`,
    '# One case per test x prompt x provider; see docs/migrating.md for how assertions map.',
    ...conversion.notes.map((n) => `# note: ${n}`),
  ].join('\n');
  return `${header}\n${stringify(conversion.suite, { lineWidth: 0, aliasDuplicateObjects: false })}`;
}
