/**
 * `value`, or a failure saying `expected <what> to be defined`: for index and lookup reads in tests
 * (noUncheckedIndexedAccess), so a missing item fails the test with a clear message instead of a
 * TypeError further on.
 */
export function defined<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`expected ${what} to be defined`);
  return value;
}
