import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import type { z } from 'zod';
import { adapterRegistry } from '../adapters/base.js';
import type { ThresholdRule } from '../core/experiment.js';
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
import type { PluginBase } from '../plugins/registry.js';
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
}

/** A validated suite, ready to run. Cases are streamed from their sources on each `cases()` call. */
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

type Locate = (path: readonly PathKey[], message: string, opts?: { key?: boolean }) => SuiteIssue;

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
  const maxIssues = options.maxIssues ?? 500;
  const abs = resolve(path);
  const display = displayPath(abs);
  const issues: SuiteIssue[] = [];
  const fileIssue = (message: string): SuiteIssue => ({ file: display, line: 0, col: 0, path: '', message });

  if (!existsSync(abs)) return { suite: null, issues: [fileIssue('suite file not found')] };
  if (statSync(abs).isDirectory()) return { suite: null, issues: [fileIssue('is a directory, expected a suite file')] };
  if (!/\.(ya?ml|json)$/i.test(abs)) {
    return { suite: null, issues: [fileIssue('unsupported suite format; use .yaml, .yml or .json')] };
  }
  // Size limit, strict UTF-8, strict JSON for .json, depth and alias limits: each a located issue, never a crash.
  const source = readSourceText(abs, display);
  if ('issue' in source) return { suite: null, issues: [source.issue] };
  const hash = createHash('sha256').update(source.bytes);
  const doc = new PositionedDocument(display, source.text, 0, { json: /\.json$/i.test(abs) });
  const locate: Locate = (p, m, o) => doc.issue(p, m, o);
  issues.push(...doc.syntaxIssues());
  if (doc.fatal) return { suite: null, issues };

  const redactor = new SecretScrubber();
  const interp: InterpolationIssue[] = [];
  const js = interpolateEnv(doc.toJS(), env, redactor, interp);
  for (const i of interp) issues.push(locate(i.path, i.message));
  if (!js || typeof js !== 'object' || Array.isArray(js)) {
    issues.push(locate([], 'a suite must be a mapping with version, name, agent and tests'));
    return { suite: null, issues };
  }
  let raw = js as Record<string, unknown>;
  // A promptfoo config runs directly: converted here (benchmarks/promptfoo.ts); an assertion or provider with
  // no equivalent is a validation error naming its line, never a silently dropped check.
  if (isPromptfooConfig(raw)) {
    const converted = convertPromptfoo(abs, doc.text);
    issues.push(...converted.unmapped);
    raw = converted.suite;
  }
  // The seed's format: `agent.module` / `agent.config`, `min` / `max` thresholds (benchmarks/seed-format.ts).
  for (const p of normalizeSeedSuite(raw).problems) issues.push(locate(p.path, p.message));
  // Credential positions of the agent's options are secrets whatever their source (`{{env.X}}` included).
  const agentSpec = raw.agent as { options?: unknown } | null | undefined;
  if (agentSpec && typeof agentSpec === 'object') registerCredentialPositions(agentSpec.options, env, redactor);
  const baseDir = dirname(abs);

  // Plugins first, so third-party evaluators/adapters/metrics are registered before names are checked.
  if (Array.isArray(raw.plugins)) {
    for (let i = 0; i < raw.plugins.length; i++) {
      const spec = raw.plugins[i];
      if (typeof spec !== 'string') continue;
      try {
        await importModule(spec, baseDir);
      } catch (err) {
        issues.push(locate(['plugins', i], `cannot load plugin '${spec}': ${errMessage(err)}`));
      }
    }
  }

  // Top-level fields; cases are validated one by one below so one bad case hides nothing else.
  const { tests: rawTests, ...top } = raw;
  const parsed = SuiteFile.safeParse(top);
  if (!parsed.success) issues.push(...mapZodIssues(parsed.error.issues, [], locate));

  if (checkPlugins) {
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
  const metricNames = metricSpecs(parsed.success ? parsed.data.metrics : undefined).map((m) =>
    (typeof m === 'string' ? m : m.name).toLowerCase(),
  );
  // Cross-field check on a valid shape only: with a schema error elsewhere, `metrics` is not known and every
  // threshold would be reported as "not in metrics" on top of the real problem.
  if (parsed.success && raw.thresholds && typeof raw.thresholds === 'object') {
    for (const name of Object.keys(raw.thresholds)) {
      if (!metricNames.includes(name.toLowerCase())) {
        issues.push(
          locate(['thresholds', name], `threshold on '${name}', which is not in metrics (${metricNames.join(', ')})`, {
            key: true,
          }),
        );
      }
    }
  }

  // The headline and display kinds name metrics of this suite.
  if (parsed.success && typeof raw.headline === 'string' && !metricNames.includes(raw.headline.toLowerCase())) {
    issues.push(locate(['headline'], `headline '${raw.headline}' is not in metrics (${metricNames.join(', ')})`));
  }
  if (parsed.success && raw.display && typeof raw.display === 'object') {
    for (const name of Object.keys(raw.display)) {
      if (!metricNames.includes(name.toLowerCase()))
        issues.push(
          locate(['display', name], `display kind for '${name}', which is not in metrics (${metricNames.join(', ')})`, {
            key: true,
          }),
        );
    }
  }

  // Metric results are keyed by name: a second entry with the same name would silently replace the first.
  if (parsed.success) {
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
  }

  // Cases: inline ones are kept; file sources are streamed now for validation and again at run time.
  const defaults: SuiteDefaults = (parsed.success ? parsed.data.defaults : undefined) ?? {};
  const entries: ({ kind: 'inline'; cases: TestCase[] } | { kind: 'file'; file: string; display: string })[] = [];
  const ids = new Map<string, string>();
  let total = 0;
  let explicitRepeats = 0;
  let implicit = 0;
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
    total++;
    if (tc.repeat) explicitRepeats += tc.repeat;
    else implicit++;
  };
  const build = (rawCase: RawCase): TestCase | null => {
    const caseIssues: SuiteIssue[] = [];
    const tc = buildCase(rawCase, defaults, env, redactor, caseIssues, checkPlugins);
    for (const i of caseIssues) pushIssue(i);
    return tc;
  };

  const testList: unknown[] =
    rawTests === undefined || rawTests === null ? [] : Array.isArray(rawTests) ? rawTests : [rawTests];
  const topLevelFileRef = typeof rawTests === 'string';
  let inline: TestCase[] | null = null;
  for (let i = 0; i < testList.length; i++) {
    const entry = testList[i];
    const entryPath: PathKey[] = topLevelFileRef ? ['tests'] : ['tests', i];
    if (typeof entry === 'string') {
      inline = null;
      const m = /^file:\/\/(.+)$/.exec(entry);
      if (!m || !/\.(jsonl|csv|ya?ml|json)$/i.test(m[1])) {
        pushIssue(locate(entryPath, 'expected a case or file://<path>.jsonl|.csv|.yaml|.yml|.json'));
        continue;
      }
      const file = resolve(baseDir, m[1]);
      if (!existsSync(file)) {
        pushIssue(locate(entryPath, `case file not found: ${displayPath(file)}`));
        continue;
      }
      const fileDisplay = displayPath(file);
      entries.push({ kind: 'file', file, display: fileDisplay });
      for await (const item of readCaseFile(file, fileDisplay, hash)) {
        if (isIssue(item)) pushIssue(item);
        else accept(item, build(item));
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
        entries.push({ kind: 'inline', cases: inline });
      }
      inline.push(tc);
    }
  }
  if (rawTests !== undefined && rawTests !== null && !Array.isArray(rawTests) && typeof rawTests !== 'string') {
    pushIssue(locate(['tests'], 'expected a list of cases or file://<path>'));
  }
  ids.clear(); // not needed after validation; the suite's closures would otherwise keep it alive
  if (suppressed > 0) {
    issues.push({ file: display, line: 0, col: 0, path: '', message: `... and ${suppressed} more problems` });
  }
  if (issues.length > 0 || !parsed.success) return { suite: null, issues };

  const file = parsed.data;
  const contentHash = hash.digest('hex');
  const agentOptions = file.agent.options ?? {};
  const suite: LoadedSuite = {
    name: file.name,
    version: file.version,
    description: file.description ?? null,
    path: abs,
    baseDir,
    contentHash,
    totalCases: total,
    agent: {
      adapter: file.agent.adapter,
      options: agentOptions,
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
  return { suite, issues };
}

function displayPath(abs: string): string {
  const rel = relative(process.cwd(), abs);
  return rel && !rel.startsWith('..') ? rel : abs;
}

function errMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
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
function mapZodIssues(zodIssues: readonly z.core.$ZodIssue[], prefix: PathKey[], locate: Locate): SuiteIssue[] {
  const out: SuiteIssue[] = [];
  for (const issue of zodIssues) {
    const path = [...prefix, ...(issue.path as PathKey[])];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push(locate([...path, key], `unknown field '${key}'`, { key: true }));
    } else if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      const branch =
        issue.errors.find((b) => !b.some((i) => i.path.length === 0 && i.code === 'invalid_type')) ?? issue.errors[0];
      const allRootType = issue.errors.every((b) => b.every((i) => i.path.length === 0 && i.code === 'invalid_type'));
      if (allRootType) {
        const expected = issue.errors.flatMap((b) =>
          b.map((i) => (i.code === 'invalid_type' ? String(i.expected) : 'value')),
        );
        out.push(locate(path, `expected ${[...new Set(expected)].join(' or ')}`));
      } else out.push(...mapZodIssues(branch, path, locate));
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
    issues.push(locate(namePath, errMessage(err)));
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
    } else issues.push(locate(path, errMessage(err)));
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
    issues.push(...mapZodIssues(parsed.error.issues, [], raw.locate));
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
