/** Scoring: families, gates, statistics, authority recommendation, paired comparison and ablation attribution. */
export * from './ablation-report.js';
export * from './engine.js';
export * from './paired.js';
export * from './profile.js';
export * from './result.js';
