// `@aeh/harness/stats`: the statistics other packages build on (soclab scoring), without the rest of the library
// (the root evaluates every built-in plugin). The same names as the root's statistics section.
export {
  type Interval,
  type McNemarResult,
  mcnemarExact,
  type SignFlipResult,
  seededRandom,
  signFlipTest,
  wilson,
  Z95,
} from './index.js';
