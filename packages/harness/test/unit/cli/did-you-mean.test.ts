import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nearestName } from '@aeh/models';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveCategory } from '../../../src/cli/commands/list-plugins.js';
import { loadBuiltins } from '../../../src/cli/common.js';
import { validateSuite } from '../../../src/suites/loader.js';

const dir = mkdtempSync(join(tmpdir(), 'harness-dym-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('"did you mean" on every name lookup (degenerate input first)', () => {
  it('nothing is suggested for an empty name or one that is nothing like any', () => {
    expect(nearestName('', ['openai'])).toBeUndefined();
    expect(nearestName('zzzzzz', ['openai', 'anthropic'])).toBeUndefined();
    expect(nearestName('op', ['openai'])).toBeUndefined();
  });

  it('provider ids and scenario ids: a typo or a truncation', () => {
    expect(nearestName('opena', ['mock', 'openai', 'openai_compatible'])).toBe('openai');
    expect(nearestName('antropic', ['openai', 'anthropic'])).toBe('anthropic');
    expect(nearestName('ATK-01', ['ATK-001', 'ATK-010', 'BEN-001'])).toBe('ATK-001');
  });

  it('plugin categories', () => {
    expect(() => resolveCategory('evaluater')).toThrow(/did you mean 'evaluators'\?/);
    expect(() => resolveCategory('xyzzy')).toThrow(/^unknown plugin category 'xyzzy' \(use one of/);
  });

  it('plugin option keys and an unquoted version, located', async () => {
    await loadBuiltins();
    const path = join(dir, 's.yaml');
    writeFileSync(
      path,
      'version: 1.0\nname: s\nagent: { adapter: echo }\ntests:\n  - id: a\n    input: hi\n    expected: hi\n    evaluators: [{ name: contains, options: { substr: x } }]\n',
    );
    const { issues } = await validateSuite(path);
    const text = issues.map((i) => `${i.line}:${i.col} ${i.message}`).join('\n');
    expect(text).toMatch(/^1:10 version must be the string "1\.0": quote it/m);
    expect(text).toMatch(/^8:45 invalid evaluator option: .*did you mean 'substring' for 'substr'\?/m);
  });
});
