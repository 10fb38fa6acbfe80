import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { firstZodIssue, formatZodIssue, formatZodIssues, issuePath } from '../../../src/core/zod-issues.js';

const Suite = z.strictObject({ name: z.string(), cases: z.array(z.strictObject({ input: z.string() })) });

describe('zod issue formatting', () => {
  it('names the root when the value itself is wrong', () => {
    const r = Suite.safeParse(42);
    expect(r.success).toBe(false);
    if (r.success) return;
    expect(firstZodIssue(r.error)).toMatch(/^\(root\): /);
    expect(formatZodIssue({ path: [], message: 'bad' }, '(options)')).toBe('(options): bad');
    expect(issuePath({ path: [] }, '')).toBe('');
  });

  it('names every failing field by its dotted path, array indexes included', () => {
    const r = Suite.safeParse({ name: 3, cases: [{ input: 'a' }, { input: 7 }] });
    expect(r.success).toBe(false);
    if (r.success) return;
    const text = formatZodIssues(r.error);
    expect(text.split('; ')).toHaveLength(2);
    expect(text).toMatch(/^name: .*; cases\.1\.input: /);
    expect(formatZodIssues(r.error, '\n').split('\n')).toHaveLength(2);
  });
});
