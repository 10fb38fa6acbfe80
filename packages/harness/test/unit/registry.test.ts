import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { closest, Registry, UnknownPluginError } from '../../src/plugins/registry.js';

describe('Registry', () => {
  const reg = new Registry<{ name: string; description: string; options: z.ZodType<never> }>('evaluator');
  for (const name of ['exact_match', 'contains', 'regex_match']) {
    reg.register({ name, description: name, options: z.never() });
  }

  it('looks names up case-insensitively and lists them sorted', () => {
    expect(reg.get('EXACT_MATCH').name).toBe('exact_match');
    expect(reg.names()).toEqual(['contains', 'exact_match', 'regex_match']);
  });

  it('suggests the closest known name for a typo', () => {
    expect(() => reg.get('exact_mach')).toThrowError("unknown evaluator 'exact_mach'; did you mean 'exact_match'?");
    try {
      reg.get('zzzzzzzzzz');
    } catch (e) {
      expect(e).toBeInstanceOf(UnknownPluginError);
      expect((e as Error).message).not.toContain('did you mean');
      expect((e as Error).message).toContain('known: contains, exact_match, regex_match');
    }
  });

  it('does not suggest wildly different names', () => {
    expect(closest('foo', ['exact_match'])).toBeUndefined();
  });
});
