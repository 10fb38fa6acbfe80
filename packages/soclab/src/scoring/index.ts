/** Scoring: families, gates, statistics, authority recommendation, paired comparison and ablation attribution. */
export * from './ablation.js';
export * from './engine.js';
export * from './paired.js';
export * from './profile.js';
export * from './result.js';
