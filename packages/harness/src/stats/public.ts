// `@aeh/harness/stats`: the statistics other packages build on (soclab scoring), without the rest of the library
// (the root evaluates every built-in plugin) or the other statistics modules. The root's statistics section.
export { type McNemarResult, mcnemarExact, type SignFlipResult, signFlipTest } from './paired.js';
export { seededRandom } from './rng.js';
export { type Interval, wilson, Z95 } from './wilson.js';
