import { describe, expect, it } from 'vitest';
// Through the package root, as users import it: the prices come from the provider entries it loads.
import { estimateCostUsd } from '../../../src/index.js';
import { retryAfterSeconds, retryableStatus, strictCompatible } from '../../../src/providers/ai-sdk.js';

describe('prices: snapshots and aliases take their family price; unknown stays unknown', () => {
  const usage = { input_tokens: 1_000_000, output_tokens: 1_000_000 };
  it('prices exact, dated and alias names, and returns null (not 0) for a model the table lacks', () => {
    expect(estimateCostUsd('gpt-4o-mini', usage)).toBe(0.75);
    expect(estimateCostUsd('gpt-4o-mini-2024-07-18', usage)).toBe(0.75);
    expect(estimateCostUsd('claude-sonnet-4-0', usage)).toBe(18);
    expect(estimateCostUsd('claude-sonnet-4-20250514', usage)).toBe(18);
    expect(estimateCostUsd('acme-sec-7b', usage)).toBeNull();
    expect(estimateCostUsd('gpt-4o-mini-2024-07-18-evil', usage)).toBeNull();
    expect(estimateCostUsd('claude-sonnet-4-latest', usage)).toBe(18);
  });
});

describe('retry facts read from a vendor error', () => {
  it('retries 408, 429 and 5xx only; every other 4xx is a contract error', () => {
    expect([408, 429, 500, 502, 503, 529].every(retryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 409, 413, 422].some(retryableStatus)).toBe(false);
  });

  it('reads Retry-After as seconds or an HTTP date, and retry-after-ms first; ignores garbage', () => {
    expect(retryAfterSeconds({ 'Retry-After': '1' })).toBe(1);
    expect(retryAfterSeconds({ 'retry-after': '2.5' })).toBe(2.5);
    expect(retryAfterSeconds({ 'retry-after-ms': '350', 'retry-after': '9' })).toBe(0.35);
    const inTen = new Date(Date.now() + 10_000).toUTCString();
    expect(retryAfterSeconds({ 'retry-after': inTen })).toBeGreaterThan(8);
    expect(retryAfterSeconds({ 'retry-after': 'Thu, 01 Jan 1970 00:00:00 GMT' })).toBe(0);
    expect(retryAfterSeconds({ 'retry-after': 'soon' })).toBeUndefined();
    expect(retryAfterSeconds({ 'retry-after': '-5' })).toBeUndefined();
    expect(retryAfterSeconds(undefined)).toBeUndefined();
  });
});

describe('OpenAI strict structured outputs', () => {
  it('accepts only closed schemas with every property required', () => {
    const closed = {
      type: 'object',
      properties: {
        a: { type: 'string' },
        b: { type: 'object', properties: {}, required: [], additionalProperties: false },
      },
      required: ['a', 'b'],
      additionalProperties: false,
    };
    expect(strictCompatible(closed)).toBe(true);
    expect(strictCompatible({ type: 'object', required: ['tool', 'arguments'] })).toBe(false);
    expect(strictCompatible({ ...closed, required: ['a'] })).toBe(false);
    expect(
      strictCompatible({
        ...closed,
        properties: { ...closed.properties, c: { type: 'object' } },
        required: ['a', 'b', 'c'],
      }),
    ).toBe(false);
  });
});
