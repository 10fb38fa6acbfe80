/** Statistics used by metrics, comparison and reports. */
export * from './agreement.js';
export * from './bootstrap.js';
// paired.ts has its own quantileSorted (same type-7 definition); export the rest explicitly to avoid a clash.
export {
  holmAdjust,
  type McNemarResult,
  mcnemarExact,
  type PairedBootstrapOptions,
  type PairedBootstrapResult,
  pairedBootstrap,
  type SignFlipOptions,
  type SignFlipResult,
  signFlipTest,
} from './paired.js';
export * from './percentiles.js';
export * from './power.js';
export * from './rng.js';
export * from './wilson.js';
