import type { TestCase } from '../../core/testcase.js';

/** Text form of an expected value: strings unchanged, other values as compact JSON. */
export function expectedText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

/** The value to compare against: the evaluator's own `value` option wins over the case's `expected`. */
export function resolveExpected(option: unknown, testCase: TestCase): unknown {
  if (option !== undefined && option !== null) return option;
  return testCase.expected;
}

/** True when nothing was given to compare against. */
export function isMissing(value: unknown): boolean {
  return value === undefined || value === null;
}

/** Shorten long text for explanations (full values stay in details). */
export function clip(text: string, max = 200): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
