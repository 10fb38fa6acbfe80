import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { z } from 'zod';
import { adapterRegistry } from '../adapters/base.js';
import { errorMessage } from '../core/errors.js';
import type { ThresholdRule } from '../core/experiment.js';
import { itemAt } from '../core/item-at.js';
import type { MetricSpec, SuiteLike } from '../core/suite.js';
import type { EvaluatorConfig, TestCase } from '../core/testcase.js';
import {
  CommonEvaluatorOptions,
  evaluatorRegistry,
  PluginOptionsError,
  parseOptions,
  splitEvaluatorOptions,
} from '../evaluators/base.js';
import { metricRegistry } from '../metrics/base.js';
import { importModule } from '../plugins/import.js';
import { closest, levenshtein, type PluginBase } from '../plugins/registry.js';
import { registerCredentialPositions, SecretScrubber } from '../secrets/scrubber.js';
import { caseContentId } from './hash.js';
import { type InterpolationIssue, interpolateEnv } from './interpolate.js';
import { formatIssue, type PathKey, PositionedDocument, type SuiteIssue } from './positions.js';
import { convertPromptfoo, isPromptfooConfig } from './promptfoo.js';
import { SuiteCase, type SuiteDefaults, type SuiteEvaluator, SuiteFile, type SuiteMetric } from './schema.js';
import { normalizeSeedSuite } from './seed-format.js';
import { readSourceText } from './source-limits.js';
import { isIssue, type RawCase, readCaseFile } from './sources.js';

/** Reported when a suite (or one of its case files) has problems; `issues` holds every one of them. */
export class SuiteValidationError extends Error {
  readonly code = 'AEH_ERR_SUITE_INVALID';
  override name = 'SuiteValidationError';
  constructor(readonly issues: SuiteIssue[]) {
    super(
      `suite is invalid (${issues.length} problem${issues.length === 1 ? '' : 's'}):\n${issues.map((i) => `  ${formatIssue(i)}`).join('\n')}`,
    );
  }
}

export interface LoadSuiteOptions {
  /** Environment for `${VAR}` interpolation (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Check that adapter/evaluator/metric names exist and their options validate (default true). */
  checkPlugins?: boolean;
  /** Stop collecting case errors after this many (default 500; the rest are counted). */
  maxIssues?: number;
  /** Keep validated cases in memory while the case files total at most this many bytes (default CASE_CACHE_BYTES). */
  caseCacheBytes?: number;
  /**
   * Called with the suite as one object (interpolated, converted) before its `plugins:` load and names are checked:
   * `harness run` loads the built-ins it names there (plugins/builtins.ts).
   */
  beforePlugins?: (raw: Readonly<Record<string, unknown>>) => Promise<void>;
}

/**
 * A validated suite, ready to run. `cases()` yields the cases as validated, from memory for small suites (see
 * CASE_CACHE_BYTES), else streamed from their sources again on each call.
 */
export interface LoadedSuite extends SuiteLike {
  path: string;
  description: string | null;
  plugins: string[];
  quarantine: string[];
  vars: Record<string, unknown>;
  redactor: SecretScrubber;
  defaults: SuiteDefaults;
  metadata: Record<string, unknown>;
  cases(): AsyncIterable<TestCase>;
  plannedRuns(repeat: number): number;
}

export type Locate = (path: readonly PathKey[], message: string, opts?: { key?: boolean }) => SuiteIssue;

/** Parse, interpolate and validate a suite; throws SuiteValidationError listing every problem found. */
export async function loadSuite(path: string, options: LoadSuiteOptions = {}): Promise<LoadedSuite> {
  const { suite, issues } = await validateSuite(path, options);
  if (!suite || issues.length > 0) throw new SuiteValidationError(issues);
  return suite;
}

/** Validate a suite and everything it references without running anything; never throws for bad input. */
export async function validateSuite(
  path: string,
  options: LoadSuiteOptions = {},
): Promise<{ suite: LoadedSuite | null; issues: SuiteIssue[] }> {
  const env = options.env ?? process.env;
  const checkPlugins = options.checkPlugins !== false;
  const abs = resolve(path);
  const display = displayPath(abs);
  const read = readSuiteDocument(abs, display);
  if ('issues' in read) return { suite: null, issues: read.issues };
  const { doc, hash } = read;
  const locate: Locate = (p, m, o) => doc.issue(p, m, o);
  const issues: SuiteIssue[] = [...doc.syntaxIssues()];
  if (doc.fatal) return { suite: null, issues };

  const redactor = new SecretScrubber();
  const raw = suiteObject(doc, abs, env, redactor, locate, issues);
  if (!raw) return { suite: null, issues };
  const baseDir = dirname(abs);
  if (options.beforePlugins) await options.beforePlugins(raw);
  // Plugins first, so third-party evaluators/adapters/metrics are registered before names are checked.
  await loadSuitePlugins(raw.plugins, baseDir, locate, issues);

  // Top-level fields; cases are validated one by one below so one bad case hides nothing else.
  const { tests: rawTests, ...top } = raw;
  const parsed = SuiteFile.safeParse(top);
  if (!parsed.success) issues.push(...mapZodIssues(parsed.error.issues, [], locate, SuiteFile));
  if (checkPlugins) checkPluginNames(raw, locate, issues);
  // Cross-field checks on a valid shape only: with a schema error elsewhere, `metrics` is not known and every
  // reference would be reported as "not in metrics" on top of the real problem.
  if (parsed.success) issues.push(...checkMetricReferences(raw, metricSpecs(parsed.data.metrics), locate));

  const defaults: SuiteDefaults = (parsed.success ? parsed.data.defaults : undefined) ?? {};
  const context: CaseContext = { defaults, env, redactor, checkPlugins, baseDir, hash, locate, display };
  const cases = await collectCases(
    rawTests,
    context,
    issues,
    options.maxIssues ?? 500,
    options.caseCacheBytes ?? CASE_CACHE_BYTES,
  );
  if (issues.length > 0 || !parsed.success) return { suite: null, issues };
  return { suite: assembleSuite(parsed.data, abs, hash.digest('hex'), cases, context), issues };
}

/** Phase 1: the file itself: exists, is a suite format, within the size and depth limits, parsed with positions. */
function readSuiteDocument(
  abs: string,
  display: string,
): { doc: PositionedDocument; hash: ReturnType<typeof createHash> } | { issues: SuiteIssue[] } {
  const fileIssue = (message: string): SuiteIssue => ({ file: display, line: 0, col: 0, path: '', message });
  if (!existsSync(abs)) return { issues: [fileIssue('suite file not found')] };
  if (statSync(abs).isDirectory()) return { issues: [fileIssue('is a directory, expected a suite file')] };
  if (!/\.(ya?ml|json)$/i.test(abs))
    return { issues: [fileIssue('unsupported suite format; use .yaml, .yml or .json')] };
  // Size limit, strict UTF-8, strict JSON for .json, depth and alias limits: each a located issue, never a crash.
  const source = readSourceText(abs, display);
  if ('issue' in source) return { issues: [source.issue] };
  const hash = createHash('sha256').update(source.bytes);
  return { doc: new PositionedDocument(display, source.text, 0, { json: /\.json$/i.test(abs) }), hash };
}

/**
 * Phase 2: the suite as one object in this project's format: `${VAR}` interpolated (secrets registered), a promptfoo
 * config converted, the seed's format normalised, credential positions of the agent's options registered. Null (with
 * an issue) when the document is not a mapping.
 */
function suiteObject(
  doc: PositionedDocument,
  abs: string,
  env: Readonly<Record<string, string | undefined>>,
  redactor: SecretScrubber,
  locate: Locate,
  issues: SuiteIssue[],
): Record<string, unknown> | null {
  const interp: InterpolationIssue[] = [];
  const js = interpolateEnv(doc.toJS(), env, redactor, interp);
  for (const i of interp) issues.push(locate(i.path, i.message));
  if (!js || typeof js !== 'object' || Array.isArray(js)) {
    issues.push(locate([], 'a suite must be a mapping with version, name, agent and tests'));
    return null;
  }
  let raw = js as Record<string, unknown>;
  // A promptfoo config runs directly: converted here (suites/promptfoo.ts); an assertion or provider with
  // no equivalent is a validation error naming its line, never a silently dropped check.
  if (isPromptfooConfig(raw)) {
    const converted = convertPromptfoo(abs, doc.text);
    issues.push(...converted.unmapped);
    raw = converted.suite;
  }
  // The seed's format: `agent.module` / `agent.config`, `min` / `max` thresholds (suites/seed-format.ts).
  for (const p of normalizeSeedSuite(raw).problems) issues.push(locate(p.path, p.message));
  // Credential positions of the agent's options are secrets whatever their source (`{{env.X}}` included).
  const agentSpec = raw.agent as { options?: unknown } | null | undefined;
  if (agentSpec && typeof agentSpec === 'object') registerCredentialPositions(agentSpec.options, env, redactor);
  return raw;
}

/** Phase 3: import the suite's `plugins:` modules; one that fails to load is an issue at its entry. */
async function loadSuitePlugins(
  plugins: unknown,
  baseDir: string,
  locate: Locate,
  issues: SuiteIssue[],
): Promise<void> {
  if (!Array.isArray(plugins)) return;
  for (let i = 0; i < plugins.length; i++) {
    const spec = plugins[i];
    if (typeof spec !== 'string') continue;
    try {
      await importModule(spec, baseDir);
    } catch (err) {
      issues.push(locate(['plugins', i], `cannot load plugin '${spec}': ${errorMessage(err)}`));
    }
  }
}

/** Phase 4: every adapter, evaluator and metric name exists and its options validate. */
function checkPluginNames(raw: Record<string, unknown>, locate: Locate, issues: SuiteIssue[]): void {
  const agent = raw.agent as Record<string, unknown> | undefined;
  if (agent && typeof agent === 'object' && typeof agent.adapter === 'string') {
    checkPlugin('adapter', adapterRegistry, agent.adapter, agent.options, ['agent'], locate, issues, 'adapter');
  }
  checkEvaluatorList(raw.evaluators, ['evaluators'], locate, issues);
  const defaults = raw.defaults as Record<string, unknown> | undefined;
  if (defaults && typeof defaults === 'object') {
    checkEvaluatorList(defaults.evaluators, ['defaults', 'evaluators'], locate, issues);
  }
  if (Array.isArray(raw.metrics)) {
    raw.metrics.forEach((m, i) => {
      if (typeof m === 'string') checkPlugin('metric', metricRegistry, m, undefined, ['metrics', i], locate, issues);
      else if (m && typeof m === 'object' && typeof (m as { name?: unknown }).name === 'string') {
        const mm = m as { name: string; options?: unknown };
        checkPlugin('metric', metricRegistry, mm.name, mm.options, ['metrics', i], locate, issues, 'name');
      }
    });
  }
}

/**
 * Phase 5: what refers to the suite's metrics names one of them (thresholds, headline, display kinds), and no metric
 * is listed twice (results are keyed by name). Call it on a valid shape only.
 */
export function checkMetricReferences(
  raw: { thresholds?: unknown; headline?: unknown; display?: unknown },
  metrics: readonly MetricSpec[],
  locate: Locate,
): SuiteIssue[] {
  const issues: SuiteIssue[] = [];
  const metricNames = metrics.map((m) => (typeof m === 'string' ? m : m.name).toLowerCase());
  const known = metricNames.join(', ');
  if (raw.thresholds && typeof raw.thresholds === 'object') {
    for (const [name, rule] of Object.entries(raw.thresholds)) {
      if (!metricNames.includes(name.toLowerCase())) {
        issues.push(
          locate(['thresholds', name], `threshold on '${name}', which is not in metrics (${known})`, { key: true }),
        );
      }
      // A gate no result can pass is a typo, not a policy: say so before the run rather than fail every run after it.
      const { minimum, maximum } = (rule ?? {}) as { minimum?: unknown; maximum?: unknown };
      if (typeof minimum === 'number' && typeof maximum === 'number' && minimum > maximum) {
        issues.push(
          locate(
            ['thresholds', name, 'minimum'],
            `threshold on '${name}': minimum ${minimum} is above maximum ${maximum}, so no result can pass it`,
          ),
        );
      }
    }
  }
  if (typeof raw.headline === 'string' && !metricNames.includes(raw.headline.toLowerCase())) {
    issues.push(locate(['headline'], `headline '${raw.headline}' is not in metrics (${known})`));
  }
  if (raw.display && typeof raw.display === 'object') {
    for (const name of Object.keys(raw.display)) {
      if (!metricNames.includes(name.toLowerCase()))
        issues.push(
          locate(['display', name], `display kind for '${name}', which is not in metrics (${known})`, { key: true }),
        );
    }
  }
  // Metric results are keyed by name: a second entry with the same name would silently replace the first.
  const firstAt = new Map<string, number>();
  metricNames.forEach((name, i) => {
    const first = firstAt.get(name);
    if (first === undefined) firstAt.set(name, i);
    else {
      issues.push(
        locate(
          ['metrics', i],
          `metric '${name}' is listed twice (also metrics[${first}]); results are keyed by name, so one would be lost`,
        ),
      );
    }
  });
  return issues;
}

/** What building cases needs from the suite around them. */
interface CaseContext {
  defaults: SuiteDefaults;
  env: Readonly<Record<string, string | undefined>>;
  redactor: SecretScrubber;
  checkPlugins: boolean;
  baseDir: string;
  /** The suite's content hash: case files' bytes are added as they are read. */
  hash: ReturnType<typeof createHash>;
  locate: Locate;
  /** The suite file as shown in issues. */
  display: string;
}

/**
 * A file's cases are kept as validated (`cases`) while the suite's case files hold at most this many bytes in all:
 * the run then reads them from memory instead of reading, parsing and building each case a second time (about a
 * third of a 1,000-case run's own CPU per case). Larger suites stream their files again, so a 100,000-case suite is
 * never held whole.
 */
export const CASE_CACHE_BYTES = 8 * 1024 * 1024;

type CaseEntry =
  | { kind: 'inline'; cases: TestCase[] }
  | { kind: 'file'; file: string; display: string; cases: TestCase[] | null };

/** The suite's cases as validated: where they come from, and how many case x repeat runs they plan. */
interface CollectedCases {
  entries: CaseEntry[];
  total: number;
  explicitRepeats: number;
  implicit: number;
}

/**
 * Phase 6: every case, inline or from `file://` sources (streamed now for validation, and again at run time unless
 * kept, see CASE_CACHE_BYTES): each built with the defaults, ids unique. Issues past `maxIssues` are counted, not kept.
 */
async function collectCases(
  rawTests: unknown,
  context: CaseContext,
  issues: SuiteIssue[],
  maxIssues: number,
  cacheBytes: number,
): Promise<CollectedCases> {
  const { locate, baseDir, hash } = context;
  const out: CollectedCases = { entries: [], total: 0, explicitRepeats: 0, implicit: 0 };
  const ids = new Map<string, string>();
  let suppressed = 0;
  const pushIssue = (i: SuiteIssue) => {
    if (issues.length < maxIssues) issues.push(i);
    else suppressed++;
  };
  const accept = (raw: RawCase, tc: TestCase | null): void => {
    if (!tc) return;
    const first = ids.get(tc.id);
    if (first) {
      pushIssue(raw.locate(['id'], `duplicate case id '${tc.id}' (first at ${first})`));
      return;
    }
    let origin = raw.origin;
    if (origin === undefined) {
      const where = raw.locate(['id'], '');
      origin = `${where.file}:${where.line}:${where.col}`;
    }
    ids.set(tc.id, origin);
    out.total++;
    if (tc.repeat) out.explicitRepeats += tc.repeat;
    else out.implicit++;
  };
  const build = (rawCase: RawCase): TestCase | null => {
    const caseIssues: SuiteIssue[] = [];
    const tc = buildCase(rawCase, context.defaults, context.env, context.redactor, caseIssues, context.checkPlugins);
    for (const i of caseIssues) pushIssue(i);
    return tc;
  };

  const testList: unknown[] =
    rawTests === undefined || rawTests === null ? [] : Array.isArray(rawTests) ? rawTests : [rawTests];
  const topLevelFileRef = typeof rawTests === 'string';
  let inline: TestCase[] | null = null;
  let cachedBytes = 0;
  for (let i = 0; i < testList.length; i++) {
    const entry = testList[i];
    const entryPath: PathKey[] = topLevelFileRef ? ['tests'] : ['tests', i];
    if (typeof entry === 'string') {
      inline = null;
      const m = /^file:\/\/(.+)$/.exec(entry);
      if (!m || !/\.(jsonl|csv|ya?ml|json)$/i.test(m[1] as string)) {
        pushIssue(locate(entryPath, 'expected a case or file://<path>.jsonl|.csv|.yaml|.yml|.json'));
        continue;
      }
      const file = resolve(baseDir, m[1] as string);
      if (!existsSync(file)) {
        pushIssue(locate(entryPath, `case file not found: ${displayPath(file)}`));
        continue;
      }
      const fileDisplay = displayPath(file);
      const size = statSync(file).size;
      const kept: TestCase[] | null = cachedBytes + size <= cacheBytes ? [] : null;
      if (kept) cachedBytes += size;
      out.entries.push({ kind: 'file', file, display: fileDisplay, cases: kept });
      for await (const item of readCaseFile(file, fileDisplay, hash)) {
        if (isIssue(item)) pushIssue(item);
        else {
          const tc = build(item);
          accept(item, tc);
          // A case with problems fails the whole suite, so what is kept is used only when every case built.
          if (tc && kept) kept.push(tc);
        }
      }
      continue;
    }
    const rawCase: RawCase = {
      value: entry,
      locate: (p, msg, o) => locate([...entryPath, ...p], msg, o),
    };
    const tc = build(rawCase);
    accept(rawCase, tc);
    if (tc) {
      if (!inline) {
        inline = [];
        out.entries.push({ kind: 'inline', cases: inline });
      }
      inline.push(tc);
    }
  }
  if (rawTests !== undefined && rawTests !== null && !Array.isArray(rawTests) && typeof rawTests !== 'string') {
    pushIssue(locate(['tests'], 'expected a list of cases or file://<path>'));
  }
  if (suppressed > 0) {
    issues.push({ file: context.display, line: 0, col: 0, path: '', message: `... and ${suppressed} more problems` });
  }
  return out;
}

/** Phase 7: the validated suite; `cases()` yields the kept cases, or streams a file whose cases were not kept. */
function assembleSuite(
  file: SuiteFile,
  abs: string,
  contentHash: string,
  collected: CollectedCases,
  context: CaseContext,
): LoadedSuite {
  const { defaults, env, redactor } = context;
  const { entries, total, explicitRepeats, implicit } = collected;
  return {
    name: file.name,
    version: file.version,
    description: file.description ?? null,
    path: abs,
    baseDir: context.baseDir,
    contentHash,
    totalCases: total,
    agent: {
      adapter: file.agent.adapter,
      options: file.agent.options ?? {},
      ...(file.agent.label ? { label: file.agent.label } : {}),
      ...(file.agent.version ? { version: file.agent.version } : {}),
    },
    evaluators: (file.evaluators ?? []).map(toEvaluatorConfig),
    metrics: metricSpecs(file.metrics),
    thresholds: (file.thresholds ?? {}) as Record<string, ThresholdRule>,
    ...(file.headline ? { headline: file.headline } : {}),
    ...(file.display ? { display: file.display } : {}),
    quarantine: file.quarantine ?? [],
    plugins: file.plugins ?? [],
    vars: file.vars ?? {},
    defaults,
    metadata: file.metadata ?? {},
    redactor,
    plannedRuns: (repeat: number) => explicitRepeats + implicit * repeat,
    async *cases() {
      for (const entry of entries) {
        if (entry.kind === 'inline') {
          yield* entry.cases;
          continue;
        }
        if (entry.cases) {
          yield* entry.cases;
          continue;
        }
        for await (const item of readCaseFile(entry.file, entry.display)) {
          if (isIssue(item)) throw new SuiteValidationError([item]);
          const caseIssues: SuiteIssue[] = [];
          const tc = buildCase(item, defaults, env, redactor, caseIssues, false);
          if (!tc) throw new SuiteValidationError(caseIssues);
          yield tc;
        }
      }
    },
  };
}

function displayPath(abs: string): string {
  const rel = relative(process.cwd(), abs);
  return rel && !rel.startsWith('..') ? rel : abs;
}

function metricSpecs(metrics: SuiteMetric[] | undefined): MetricSpec[] {
  return (metrics ?? ['success_rate']).map((m) => (typeof m === 'string' ? m : { name: m.name, options: m.options }));
}

export function toEvaluatorConfig(e: SuiteEvaluator): EvaluatorConfig {
  if (typeof e === 'string') return { name: e, options: {}, weight: 1 };
  return {
    name: e.name,
    options: e.options ?? {},
    weight: e.weight ?? 1,
    ...(e.not !== undefined ? { not: e.not } : {}),
    ...(e.threshold !== undefined ? { threshold: e.threshold } : {}),
  };
}

/** Turn zod issues into located issues; union failures report the branch that matches the value's shape. */
function mapZodIssues(
  zodIssues: readonly z.core.$ZodIssue[],
  prefix: PathKey[],
  locate: Locate,
  root: z.ZodType,
): SuiteIssue[] {
  const out: SuiteIssue[] = [];
  for (const issue of zodIssues) {
    const path = [...prefix, ...(issue.path as PathKey[])];
    if (issue.code === 'unrecognized_keys') {
      // A misspelt field names the one it was probably meant to be, like a misspelt plugin name does.
      const known = knownKeysAt(root, path);
      for (const key of issue.keys) {
        // Not a suggestion that rewrites the whole key (`<<` is no typo of `id`).
        const near = [closest(key, known)].find((n) => n !== undefined && levenshtein(key, n) < key.length);
        const hint = near ? `; did you mean '${near}'?` : '';
        out.push(locate([...path, key], `unknown field '${key}'${hint}`, { key: true }));
      }
    } else if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      const branch =
        issue.errors.find((b) => !b.some((i) => i.path.length === 0 && i.code === 'invalid_type')) ??
        itemAt(issue.errors, 0);
      const allRootType = issue.errors.every((b) => b.every((i) => i.path.length === 0 && i.code === 'invalid_type'));
      if (allRootType) {
        const expected = issue.errors.flatMap((b) =>
          b.map((i) => (i.code === 'invalid_type' ? String(i.expected) : 'value')),
        );
        out.push(locate(path, `expected ${[...new Set(expected)].join(' or ')}`));
      } else out.push(...mapZodIssues(branch, path, locate, root));
    } else if (path.length === 1 && path[0] === 'version' && issue.code === 'invalid_value') {
      // YAML reads `version: 1.0` as the number 1.
      out.push(
        locate(path, 'version must be the string "1.0": quote it (version: "1.0"); unquoted, YAML reads a number'),
      );
    } else {
      out.push(locate(path, issue.message));
    }
  }
  return out;
}

/** The field names the schema accepts for the object at `path` (through optional, arrays, records and unions). */
function knownKeysAt(root: z.ZodType, path: readonly PathKey[]): string[] {
  const unwrap = (n: z.ZodType): z.ZodType[] => {
    if (n instanceof z.ZodOptional || n instanceof z.ZodNullable || n instanceof z.ZodDefault)
      return unwrap(n.unwrap() as z.ZodType);
    if (n instanceof z.ZodUnion) return (n.options as z.ZodType[]).flatMap(unwrap);
    return [n];
  };
  let nodes = unwrap(root);
  for (const key of path) {
    const next: z.ZodType[] = [];
    for (const n of nodes) {
      if (n instanceof z.ZodObject && typeof key === 'string' && Object.hasOwn(n.shape, key))
        next.push(n.shape[key] as z.ZodType);
      else if (n instanceof z.ZodArray && typeof key === 'number') next.push(n.element as z.ZodType);
      else if (n instanceof z.ZodRecord) next.push(n.valueType as z.ZodType);
    }
    nodes = next.flatMap(unwrap);
  }
  return [...new Set(nodes.flatMap((n) => (n instanceof z.ZodObject ? Object.keys(n.shape) : [])))];
}

function splitPath(p: string): PathKey[] {
  if (!p) return [];
  return p.split('.').map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/** Check a plugin name exists in its registry and that its options validate; issues carry positions. */
function checkPlugin(
  kind: string,
  registry: { has(name: string): boolean; get(name: string): PluginBase<unknown> },
  name: string,
  options: unknown,
  path: PathKey[],
  locate: Locate,
  issues: SuiteIssue[],
  nameField?: string,
  split?: (options: Record<string, unknown>) => Record<string, unknown>,
): void {
  const namePath = nameField ? [...path, nameField] : path;
  let plugin: PluginBase<unknown>;
  try {
    plugin = registry.get(name);
  } catch (err) {
    issues.push(locate(namePath, errorMessage(err)));
    return;
  }
  if (options !== undefined && (typeof options !== 'object' || options === null || Array.isArray(options))) return;
  const opts = (options ?? {}) as Record<string, unknown>;
  try {
    parseOptions(plugin, split ? split(opts) : opts);
  } catch (err) {
    if (err instanceof PluginOptionsError) {
      for (const i of err.issues) {
        issues.push(locate([...path, 'options', ...splitPath(i.path)], `invalid ${kind} option: ${i.message}`));
      }
    } else issues.push(locate(path, errorMessage(err)));
  }
}

function checkEvaluatorList(list: unknown, path: PathKey[], locate: Locate, issues: SuiteIssue[]): void {
  if (!Array.isArray(list)) return;
  for (const [i, e] of list.entries()) checkEvaluatorEntry(e, [...path, i], locate, issues);
}

function checkEvaluatorEntry(entry: unknown, path: PathKey[], locate: Locate, issues: SuiteIssue[]): void {
  let name: string;
  let options: unknown;
  let nameField: string | undefined;
  if (typeof entry === 'string') name = entry;
  else if (entry && typeof entry === 'object' && typeof (entry as { name?: unknown }).name === 'string') {
    name = (entry as { name: string }).name;
    options = (entry as { options?: unknown }).options;
    nameField = 'name';
  } else return;
  const plugin = evaluatorRegistry.has(name) ? evaluatorRegistry.get(name) : undefined;
  if (plugin && options && typeof options === 'object' && !Array.isArray(options)) {
    // Only the common options written inside `options` are checked here (the entry-level ones by the schema).
    const { common } = splitEvaluatorOptions(plugin, { options: options as Record<string, unknown> });
    const parsed = CommonEvaluatorOptions.safeParse(common);
    if (!parsed.success) {
      for (const i of parsed.error.issues) {
        issues.push(locate([...path, 'options', ...(i.path as PathKey[])], `invalid evaluator option: ${i.message}`));
      }
    }
  }
  checkPlugin('evaluator', evaluatorRegistry, name, options, path, locate, issues, nameField, (o) =>
    plugin ? splitEvaluatorOptions(plugin, { options: o }).own : o,
  );
}

/** Validate one raw case, merge defaults, and give it a stable id. Returns null (with issues) if invalid. */
function buildCase(
  raw: RawCase,
  defaults: SuiteDefaults,
  env: Readonly<Record<string, string | undefined>>,
  redactor: SecretScrubber,
  issues: SuiteIssue[],
  checkPlugins: boolean,
): TestCase | null {
  const interp: InterpolationIssue[] = [];
  const value = interpolateEnv(raw.value, env, redactor, interp);
  for (const i of interp) issues.push(raw.locate(i.path, i.message));
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    issues.push(raw.locate([], 'a case must be a mapping with at least an input'));
    return null;
  }
  const parsed = SuiteCase.safeParse(value);
  if (!parsed.success) {
    issues.push(...mapZodIssues(parsed.error.issues, [], raw.locate, SuiteCase));
    return null;
  }
  const c = parsed.data;
  if (checkPlugins && c.evaluators) {
    const before = issues.length;
    for (const [i, e] of c.evaluators.entries()) checkEvaluatorEntry(e, ['evaluators', i], raw.locate, issues);
    if (issues.length > before) return null;
  }
  if (interp.length > 0) return null;
  const id = c.id ?? caseContentId(value as Record<string, unknown>);
  const tags = [...new Set([...(defaults.tags ?? []), ...(c.tags ?? [])])];
  const tc: TestCase = {
    id,
    name: c.name ?? id,
    description: c.description ?? null,
    input: c.input,
    evaluators: (c.evaluators ?? defaults.evaluators ?? []).map(toEvaluatorConfig),
    tags,
    metadata: { ...(defaults.metadata ?? {}), ...(c.metadata ?? {}) },
    timeout: c.timeout ?? defaults.timeout ?? null,
    repeat: c.repeat ?? defaults.repeat ?? null,
    vars: { ...(defaults.vars ?? {}), ...(c.vars ?? {}) },
  };
  const expected = c.expected !== undefined ? c.expected : defaults.expected;
  if (expected !== undefined) tc.expected = expected;
  return tc;
}
