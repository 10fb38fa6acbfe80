/**
 * Campaigns: the scenario corpus run as a harness experiment (the `soclab` adapter, oracle evaluators and soclab
 * metrics register on import), plus comparisons and ablation studies. Programmatic entry points: `runCampaign`
 * (one campaign) and `runStudy` (campaign or baseline-versus-protected comparison, ablations, reports).
 */
export * from '../modes/ablation-modes.js';
export * from './adapter.js';
export * from './evaluators/index.js';
export * from './labels.js';
export * from './metrics/index.js';
export * from './record.js';
export * from './run.js';
export * from './slim.js';
export * from './study.js';
export * from './suite.js';
