// Public API of @aeh/harness: the names a user of the library needs, listed so the surface changes only on
// purpose (packages/harness/test/integration/api-surface.test.ts snapshots it). Importing it registers every
// built-in plugin, because the registries below are filled by the modules that define the plugins.

// Plugins: define your own and register it by name; the built-ins are looked up through the same registries.
export {
  type AdapterPlugin,
  type Agent,
  adapterRegistry,
  defineAdapter,
  type RunContext,
} from './adapters/index.js';
// Comparing two runs and gating on regressions, as `harness compare` does.
export {
  type CaseFlip,
  type CompareOptions,
  comparisonConsole,
  comparisonMarkdown,
  ExperimentComparator,
  type ExperimentComparison,
  type GateOutcome,
  type MetricDelta,
  type PairedMeasure,
  parseTolerance,
  RegressionDetector,
  type RegressionReport,
  type RegressionViolation,
  type ToleranceSpec,
} from './comparison/index.js';
// The data model: what an agent returns, what a case records, what an experiment stores.
// Terminal output shared by both CLIs (soclab prints tables and durations the way harness does).
export {
  type AgentOutput,
  agentOutput,
  colourWanted,
  type EvaluationResult,
  EXPERIMENT_SCHEMA_VERSION,
  type Experiment,
  type ExperimentView,
  formatSeconds,
  inputText,
  isView,
  type MetricDirection,
  type MetricResult,
  type MetricResultInput,
  type MetricSpec,
  outputText,
  type RunExecutor,
  type RunProgress,
  type SuiteLike,
  TestCase,
  type TestCaseResult,
  type TokenUsage,
  type ToolCallRecord,
  type ToolCallRecordInput,
  type Trace,
  tableStyle,
  viewOf,
} from './core/index.js';
export {
  type CommonEvaluatorOptions,
  createEvaluator,
  defineEvaluator,
  type EvaluateContext,
  type Evaluator,
  type EvaluatorPlugin,
  errorResult,
  evaluatorRegistry,
  judgePairwise,
  PluginOptionsError,
  parseOptions,
  registerJudgeProvider,
  result,
  unregisterJudgeProvider,
} from './evaluators/index.js';
export { defineMetric, type Metric, type MetricPlugin, metricRegistry, metricResult } from './metrics/index.js';
// Loading a user's module (path or package, `.ts` through tsx) the way `plugins:` does; soclab loads third-party
// providers with it (`--provider-module`).
export { importModule } from './plugins/import.js';
export { type PluginBase, type PluginContext, Registry, UnknownPluginError } from './plugins/registry.js';
export { defineReporter, type Reporter, type ReporterPlugin, reporterRegistry } from './reporters/index.js';
// Running a suite against an agent, and reading a finished run folder back.
export {
  AgentRunner,
  createMetric,
  createRunFolder,
  DEFAULT_RETRY,
  loadRun,
  RetryBudget,
  type RetryPolicy,
  RunSetupError,
  runExperiment,
  // Per-case results without bulky traces, for callers that keep their own records (soclab campaigns).
  slimResult,
} from './runner/index.js';
// The one secret scrubber (harness and soclab): credential positions, encoded forms, run-wide registration.
export {
  credentialSecrets,
  isCredentialHeader,
  isCredentialQueryParam,
  looksSecret,
  MIN_SECRET_LENGTH,
  REDACTED,
  registerCredentialPositions,
  SecretScrubber,
  secretForms,
  urlCredentials,
} from './secrets/scrubber.js';
// Statistics other packages build on (soclab scoring): Wilson intervals, the exact McNemar test, the paired
// sign-flip test, and the seeded generator behind reproducible resampling and simulated approvers.
export {
  type Interval,
  type McNemarResult,
  mcnemarExact,
  type SignFlipResult,
  seededRandom,
  signFlipTest,
  wilson,
  Z95,
} from './stats/index.js';
// Suites: load and validate a suite file (YAML/JSON) the way `harness run` does.
export { loadSuite, SuiteValidationError, suiteJsonSchema, validateSuite } from './suites/index.js';
