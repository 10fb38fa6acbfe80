/** Statistics used by metrics, comparison and reports. */
export * from './bootstrap.js';
export * from './percentiles.js';
export * from './rng.js';
export * from './wilson.js';
// paired.js (McNemar, paired bootstrap, Holm) is added here by the comparison work when it lands.
