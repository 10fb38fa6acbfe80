// `@aeh/harness/plugins`: defining adapters, evaluators and metrics, and loading a user's module or the built-ins a
// suite names, without evaluating every built-in plugin as the root does. The same functions as the root's.
export { defineAdapter } from '../adapters/base.js';
export { agentOutput } from '../core/agent.js';
export { defineEvaluator, errorResult, result } from '../evaluators/base.js';
export { defineMetric, metricResult } from '../metrics/base.js';
export { loadBuiltinPlugins } from './builtins.js';
export { importModule } from './import.js';
