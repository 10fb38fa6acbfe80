// `@aeh/harness/runner`: running a suite from code without evaluating every built-in plugin as the root does (~40
// ms of a fresh `soclab demo`). A suite that names built-in evaluators, metrics or adapters loads them first with
// `loadBuiltinPlugins(names)` from `@aeh/harness/plugins`. The same names as the root's runner section.
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
  slimResult,
} from './index.js';
