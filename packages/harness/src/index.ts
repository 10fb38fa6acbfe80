// Public API of @aeh/harness. Importing it registers every built-in plugin.
export * from './adapters/index.js';
export * from './benchmarks/index.js';
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
export * from './core/index.js';
export * from './evaluators/index.js';
export * from './metrics/index.js';
export * from './plugins/import.js';
export * from './plugins/registry.js';
export * from './reporters/index.js';
export * from './runner/index.js';
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
// Statistics other packages build on (soclab scoring): Wilson intervals and the exact McNemar test.
export { type Interval, type McNemarResult, mcnemarExact, wilson, Z95 } from './stats/index.js';
