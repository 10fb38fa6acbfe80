import { describe, expect, it } from 'vitest';
import { build, run } from './helpers.js';

describe('javascript', () => {
  it('runs a named export that returns a verdict object', async () => {
    const r = await run('javascript', { module: './checks.mjs#mentionsOrder' }, 'Your order ORD-123 shipped');
    expect(r).toMatchObject({ passed: true, score: 1, explanation: 'order id present' });
    expect((await run('javascript', { module: './checks.mjs#mentionsOrder' }, 'shipped')).passed).toBe(false);
  });
  it('accepts a numeric score (with config) and a boolean', async () => {
    const r = await run('javascript', { module: './checks.mjs#lengthScore', config: { target: 4 } }, 'ab');
    expect(r.score).toBe(0.5);
    expect((await run('javascript', { module: './checks.mjs#asBoolean' }, 'yes')).passed).toBe(true);
  });
  it('loads TypeScript modules through tsx', async () => {
    const r = await run('javascript', { module: './checks.ts#politeness' }, 'Thank you!');
    expect(r).toMatchObject({ passed: true, score: 1, explanation: 'polite' });
  });
  it('turns bad return values and thrown errors into evaluator errors on that case', async () => {
    const bad = await run('javascript', { module: './checks.mjs#bad' }, 'x');
    expect(bad).toMatchObject({ passed: false, error: true });
    expect(bad.explanation).toContain('must be in [0, 1]');
    const thrown = await run('javascript', { module: './checks.mjs#throws' }, 'x');
    expect(thrown.explanation).toContain('check exploded');
  });
  it('names the available functions when the export is missing', async () => {
    const r = await run('javascript', { module: './checks.mjs#nope' }, 'x');
    expect(r.explanation).toMatch(/no exported function 'nope' \(functions: .*mentionsOrder/);
    const r2 = await run('javascript', { module: './checks.mjs#notAFunction' }, 'x');
    expect(r2.error).toBe(true);
  });
  it('rejects a missing module file when built', () => {
    expect(() => build('javascript', { module: './nowhere.js#f' })).toThrow(/module not found/);
  });
});
