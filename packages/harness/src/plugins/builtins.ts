/**
 * Every built-in plugin by name, with the module that defines it, declared in the registries without loading them
 * (issue 22): `harness run` evaluates only the modules (and zod schemas) of the plugins a suite names, about 10% of a
 * 1-case run's CPU otherwise. The list must match what each module registers: test/unit/plugins/builtins.test.ts
 * checks it against the plugin folders' index modules, which still load everything (library users, list-plugins).
 */
import { adapterRegistry } from '../adapters/base.js';
import { evaluatorRegistry } from '../evaluators/base.js';
import { metricRegistry } from '../metrics/base.js';
import { reporterRegistry } from '../reporters/base.js';
import type { Registry } from './registry.js';

type Catalogue = Readonly<Record<string, () => Promise<unknown>>>;

/** Built-in evaluators: name -> import of its module (literal specifiers, so bundlers keep each one lazy). */
export const BUILTIN_EVALUATORS: Catalogue = {
  bleu: () => import('../evaluators/bleu.js'),
  choice: () => import('../evaluators/choice.js'),
  closed_qa: () => import('../evaluators/closed-qa.js'),
  contains: () => import('../evaluators/contains.js'),
  cost_budget: () => import('../evaluators/cost-budget.js'),
  exact_match: () => import('../evaluators/exact-match.js'),
  f1: () => import('../evaluators/f1.js'),
  factuality: () => import('../evaluators/factuality.js'),
  fuzzy_match: () => import('../evaluators/fuzzy-match.js'),
  injection_screen: () => import('../evaluators/injection-screen.js'),
  is_json: () => import('../evaluators/is-json.js'),
  javascript_inline: () => import('../evaluators/javascript-inline.js'),
  javascript: () => import('../evaluators/javascript.js'),
  json_match: () => import('../evaluators/json-match.js'),
  json_schema: () => import('../evaluators/json-schema.js'),
  latency_budget: () => import('../evaluators/latency-budget.js'),
  length: () => import('../evaluators/length.js'),
  llm_rubric: () => import('../evaluators/llm-rubric.js'),
  mcp_tool_usage: () => import('../evaluators/mcp-tool-usage.js'),
  numeric_match: () => import('../evaluators/numeric-match.js'),
  refusal: () => import('../evaluators/refusal.js'),
  regex_match: () => import('../evaluators/regex-match.js'),
  rouge_l: () => import('../evaluators/rouge-l.js'),
  starts_with: () => import('../evaluators/starts-with.js'),
  step_count: () => import('../evaluators/step-count.js'),
  token_budget: () => import('../evaluators/token-budget.js'),
  tool_args_valid: () => import('../evaluators/tool-args-valid.js'),
  tool_error_rate: () => import('../evaluators/tool-error-rate.js'),
  tool_sequence: () => import('../evaluators/tool-sequence.js'),
  tool_usage: () => import('../evaluators/tool-usage.js'),
  word_count: () => import('../evaluators/word-count.js'),
};

/** Built-in metrics: name -> import of its module (literal specifiers, so bundlers keep each one lazy). */
export const BUILTIN_METRICS: Catalogue = {
  accuracy: () => import('../metrics/accuracy.js'),
  cost_per_case: () => import('../metrics/cost-per-case.js'),
  cost: () => import('../metrics/cost.js'),
  error_rate: () => import('../metrics/error-rate.js'),
  flaky_cases: () => import('../metrics/flaky-cases.js'),
  judge_agreement: () => import('../metrics/judge-agreement.js'),
  latency: () => import('../metrics/latency.js'),
  latency_p50: () => import('../metrics/p50-latency.js'),
  p50_latency: () => import('../metrics/p50-latency.js'),
  latency_p95: () => import('../metrics/p95-latency.js'),
  p95_latency: () => import('../metrics/p95-latency.js'),
  latency_p99: () => import('../metrics/p99-latency.js'),
  p99_latency: () => import('../metrics/p99-latency.js'),
  pass_at_k: () => import('../metrics/pass-at-k.js'),
  pass_hat_k: () => import('../metrics/pass-hat-k.js'),
  reliability: () => import('../metrics/reliability.js'),
  success_rate: () => import('../metrics/success-rate.js'),
  token_efficiency: () => import('../metrics/token-efficiency.js'),
  tokens: () => import('../metrics/tokens.js'),
};

/** Built-in adapters: name -> import of its module (literal specifiers, so bundlers keep each one lazy). */
export const BUILTIN_ADAPTERS: Catalogue = {
  echo: () => import('../adapters/echo.js'),
  generic: () => import('../adapters/generic.js'),
  module: () => import('../adapters/generic.js'),
  http: () => import('../adapters/http.js'),
  mcp: () => import('../adapters/mcp.js'),
  mock: () => import('../adapters/mock.js'),
  model: () => import('../adapters/model.js'),
  route: () => import('../adapters/route.js'),
  subprocess: () => import('../adapters/subprocess.js'),
};

/** Built-in reporters: name -> import of its module (literal specifiers, so bundlers keep each one lazy). */
export const BUILTIN_REPORTERS: Catalogue = {
  console: () => import('../reporters/console.js'),
  csv: () => import('../reporters/csv.js'),
  html: () => import('../reporters/html.js'),
  json: () => import('../reporters/json.js'),
  jsonl: () => import('../reporters/jsonl.js'),
  junit: () => import('../reporters/junit.js'),
  markdown: () => import('../reporters/markdown.js'),
};

/** The four registries with their built-ins, in the order `harness list-plugins` shows them. */
const CATALOGUES: ReadonlyArray<readonly [Registry<never>, Catalogue]> = [
  [adapterRegistry as unknown as Registry<never>, BUILTIN_ADAPTERS],
  [evaluatorRegistry as unknown as Registry<never>, BUILTIN_EVALUATORS],
  [metricRegistry as unknown as Registry<never>, BUILTIN_METRICS],
  [reporterRegistry as unknown as Registry<never>, BUILTIN_REPORTERS],
];

let declared = false;

/** Declares every built-in by name in its registry (once); none of their modules is loaded. */
export function declareBuiltins(): void {
  if (declared) return;
  declared = true;
  for (const [registry, catalogue] of CATALOGUES) {
    for (const [name, load] of Object.entries(catalogue)) registry.declare(name, load);
  }
}

/**
 * Loads the built-ins named in `names` whatever their kind (a name that is an adapter and a metric loads both: more
 * than needed is only slower), after declaring the others. Without `names`, every built-in.
 */
export async function loadBuiltinPlugins(names?: Iterable<string>): Promise<void> {
  declareBuiltins();
  const list = names === undefined ? undefined : [...names];
  await Promise.all(CATALOGUES.map(([registry]) => registry.load(list)));
}
