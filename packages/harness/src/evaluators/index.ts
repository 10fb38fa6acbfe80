/** Built-in evaluators: importing this module registers every one of them (one file each). */
export * from './base.js';
export * from './bleu.js';
export * from './choice.js';
export * from './closed-qa.js';
export * from './contains.js';
export * from './cost-budget.js';
export * from './exact-match.js';
export * from './f1.js';
export * from './factuality.js';
export * from './fuzzy-match.js';
export * from './injection-screen.js';
export * from './is-json.js';
export * from './javascript.js';
export * from './javascript-inline.js';
export * from './json-match.js';
export * from './json-schema.js';
export * from './latency-budget.js';
export * from './length.js';
export * from './llm-rubric.js';
export * from './mcp-tool-usage.js';
export * from './numeric-match.js';
export * from './pairwise.js';
export * from './refusal.js';
export * from './regex-match.js';
export * from './rouge-l.js';
export * from './starts-with.js';
export * from './step-count.js';
export {
  collectPanelRatings,
  JudgeSpec,
  panelAgreement,
  registerJudgeProvider,
  unregisterJudgeProvider,
} from './support/judge.js';
export * from './token-budget.js';
export * from './tool-args-valid.js';
export * from './tool-error-rate.js';
export * from './tool-sequence.js';
export * from './tool-usage.js';
export * from './word-count.js';
