/**
 * Settings of the property (fuzz) tests, shared by every `*.fuzz.test.ts`: in the test suite a short run with a
 * fixed seed (reproducible in CI); under `npm run fuzz` (scripts/fuzz.mjs) `FUZZ_RUNS` and `FUZZ_SEED` make it
 * longer and vary it. A failure prints the seed and path that reproduce it.
 */
export function fuzzParameters(suiteRuns: number): { numRuns: number; seed: number; endOnFailure: true } {
  const runs = Number(process.env.FUZZ_RUNS);
  const seed = Number(process.env.FUZZ_SEED);
  return {
    numRuns: Number.isInteger(runs) && runs > 0 ? runs : suiteRuns,
    seed: Number.isInteger(seed) ? seed : 15_015,
    endOnFailure: true,
  };
}

/** Per-test timeout that grows with the number of runs (the suite's short slice keeps the default). */
export function fuzzTimeout(suiteRuns: number, msPerRun: number): number {
  return Math.max(60_000, fuzzParameters(suiteRuns).numRuns * msPerRun);
}
