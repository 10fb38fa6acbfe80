import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { firstZodIssue } from '@aeh/harness/zod-issues';
import { isMap, isSeq, LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { DecisionOutcome, RiskTier } from '../../contracts/enums.js';
import { decideOrFailClosed, type EngineDecision, type PolicyEngine, PolicyLoadError } from './engine.js';
import type { PolicyInputData } from './input.js';

/**
 * The policy's own test table: YAML files in `<policy dir>/tests/`, each with an optional `base` input document and
 * a list of cases. A case either gives a complete `input`, or `proposal` / `context` overrides merged onto the base
 * (objects merge recursively; `arguments` and arrays are replaced; `null` removes a key). `{$repeat, times, prefix}`
 * anywhere in an input expands to a long string. Engine failures are reported as `deny` + `policy_unavailable`,
 * exactly what the gateway does with them.
 */

/** The test-table file schemas, built on first use: only `soclab policy test` reads a table. */
function buildSchemas() {
  const Expectation = z.strictObject({
    decision: DecisionOutcome,
    reason_codes: z.array(z.string().min(1)).min(1),
    /** Obligation names in order; compared only when given. */
    obligations: z.array(z.string()).optional(),
    risk_tier: RiskTier.optional(),
  });

  const JsonRecord = z.record(z.string(), z.unknown());

  const PolicyTestCase = z
    .strictObject({
      name: z.string().regex(/^[a-z0-9][a-z0-9_.-]*$/, 'use lowercase letters, digits, _ . -'),
      description: z.string().optional(),
      /** Where the case comes from, e.g. `origin` (the reference policy's unit tests) or a scenario id. */
      source: z.string().optional(),
      input: z.unknown().optional(),
      proposal: JsonRecord.optional(),
      context: JsonRecord.optional(),
      expect: Expectation,
    })
    .refine((c) => c.input === undefined || (c.proposal === undefined && c.context === undefined), {
      message: 'give either input or proposal/context overrides, not both',
    });

  const PolicyTestFile = z.strictObject({
    base: z.strictObject({ proposal: JsonRecord, context: JsonRecord }).optional(),
    cases: z.array(PolicyTestCase).min(1),
  });
  return { Expectation, PolicyTestCase, PolicyTestFile };
}

type Schemas = ReturnType<typeof buildSchemas>;
let schemas: Schemas | undefined;
const testTableSchemas = (): Schemas => (schemas ??= buildSchemas());

export type PolicyTestCase = z.infer<Schemas['PolicyTestCase']>;

export interface LoadedPolicyCase extends PolicyTestCase {
  /** `file:line` of the case. */
  location: string;
  resolvedInput: unknown;
}

export interface PolicyCaseResult {
  name: string;
  location: string;
  passed: boolean;
  expected: z.infer<Schemas['Expectation']>;
  actual: Pick<EngineDecision, 'outcome' | 'reason_codes' | 'risk_tier'> & { obligations: string[] };
  /** Why the engine failed closed, when it did. */
  error: string | null;
  /** Human-readable mismatches. */
  mismatches: string[];
}

export interface PolicyTestReport {
  dir: string;
  policy_version: string;
  total: number;
  passed: number;
  failed: number;
  results: PolicyCaseResult[];
}

/** Load every `tests/*.yaml` (and `*.yml`) of a policy folder; errors name file:line:col. */
export function loadPolicyTestTable(policyDir: string): LoadedPolicyCase[] {
  const dir = join(policyDir, 'tests');
  if (!existsSync(dir)) throw new PolicyLoadError(`${dir}: no policy test folder`);
  const files = readdirSync(dir)
    .filter((n) => n.endsWith('.yaml') || n.endsWith('.yml'))
    .sort();
  if (files.length === 0) throw new PolicyLoadError(`${dir}: no *.yaml policy test files`);
  const cases: LoadedPolicyCase[] = [];
  const seen = new Map<string, string>();
  for (const name of files) {
    const path = join(dir, name);
    for (const c of loadFile(path)) {
      const first = seen.get(c.name);
      if (first) throw new PolicyLoadError(`${c.location}: duplicate case name ${c.name} (first at ${first})`);
      seen.set(c.name, c.location);
      cases.push(c);
    }
  }
  return cases;
}

function loadFile(path: string): LoadedPolicyCase[] {
  const text = readFileSync(path, 'utf8');
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true });
  const where = (offset: number | undefined): string => {
    const pos = lineCounter.linePos(offset ?? 0);
    return `${path}:${pos.line}:${pos.col}`;
  };
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    throw new PolicyLoadError(`${where(e?.pos[0])}: ${e?.message.split('\n')[0]}`);
  }
  const parsed = testTableSchemas().PolicyTestFile.safeParse(doc.toJS());
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const node = doc.getIn(issue?.path ?? [], true) as { range?: [number, number, number] } | undefined;
    const at = node && typeof node === 'object' && 'range' in node ? node.range?.[0] : undefined;
    throw new PolicyLoadError(`${where(at)}: ${firstZodIssue(parsed.error)}`);
  }
  const casesNode = doc.get('cases', true);
  return parsed.data.cases.map((c, index) => {
    const node = isSeq(casesNode) ? casesNode.items[index] : undefined;
    const offset = isMap(node) ? node.range?.[0] : undefined;
    const location = where(offset).replace(/:\d+$/, '');
    const base = parsed.data.base;
    const resolvedInput = expandMacros(
      c.input !== undefined
        ? c.input
        : {
            proposal: merge(base?.proposal ?? {}, c.proposal ?? {}),
            context: merge(base?.context ?? {}, c.context ?? {}),
          },
    );
    return { ...c, location, resolvedInput };
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Recursive merge: objects merge, `arguments` and arrays are replaced, `null` deletes the key. */
export function merge(base: Record<string, unknown>, override: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = structuredClone(base);
  for (const [key, value] of Object.entries(override)) {
    if (value === null) delete out[key];
    else if (key !== 'arguments' && isPlainObject(value) && isPlainObject(out[key])) {
      out[key] = merge(out[key] as Record<string, unknown>, value);
    } else out[key] = structuredClone(value);
  }
  return out;
}

/** Expand `{$repeat: "x", times: 600, prefix?: "..."}` into a string. */
function expandMacros(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(expandMacros);
  if (isPlainObject(value)) {
    if (typeof value.$repeat === 'string' && typeof value.times === 'number') {
      const prefix = typeof value.prefix === 'string' ? value.prefix : '';
      return prefix + value.$repeat.repeat(value.times);
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandMacros(v)]));
  }
  return value;
}

/** Run the table against an engine. Reason codes are compared as sorted sets; obligations by name and order. */
export async function runPolicyTestTable(
  engine: PolicyEngine,
  cases: readonly LoadedPolicyCase[],
  dir: string,
): Promise<PolicyTestReport> {
  const results: PolicyCaseResult[] = [];
  for (const c of cases) {
    const { decision, error } = await decideOrFailClosed(engine, c.resolvedInput as PolicyInputData);
    const actual = {
      outcome: decision.outcome,
      reason_codes: decision.reason_codes,
      risk_tier: decision.risk_tier,
      obligations: decision.obligations.map((o) => o.name),
    };
    const mismatches: string[] = [];
    if (actual.outcome !== c.expect.decision)
      mismatches.push(`decision ${actual.outcome}, expected ${c.expect.decision}`);
    const wantCodes = [...new Set(c.expect.reason_codes)].sort();
    if (wantCodes.join(',') !== actual.reason_codes.join(',')) {
      mismatches.push(`reason codes [${actual.reason_codes.join(', ')}], expected [${wantCodes.join(', ')}]`);
    }
    if (c.expect.obligations && c.expect.obligations.join(',') !== actual.obligations.join(',')) {
      mismatches.push(`obligations [${actual.obligations.join(', ')}], expected [${c.expect.obligations.join(', ')}]`);
    }
    if (c.expect.risk_tier && c.expect.risk_tier !== actual.risk_tier) {
      mismatches.push(`risk tier ${actual.risk_tier}, expected ${c.expect.risk_tier}`);
    }
    results.push({
      name: c.name,
      location: c.location,
      passed: mismatches.length === 0,
      expected: c.expect,
      actual,
      error: error ? error.message : null,
      mismatches,
    });
  }
  const passed = results.filter((r) => r.passed).length;
  return {
    dir,
    policy_version: engine.version,
    total: results.length,
    passed,
    failed: results.length - passed,
    results,
  };
}
