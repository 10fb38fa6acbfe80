/** Statistics used by metrics, comparison and reports. */
export * from './agreement.js';
export * from './bootstrap.js';
// paired.js (McNemar, paired bootstrap, Holm) is exported here once it is committed.
export * from './percentiles.js';
export * from './power.js';
export * from './rng.js';
export * from './wilson.js';
