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

  it('a misspelt suite field, case field or evaluator field names the one it was meant to be', async () => {
    await loadBuiltins();
    const path = join(dir, 'fields.yaml');
    writeFileSync(
      path,
      [
        'version: "1.0"',
        'name: s',
        'agnet: { adapter: echo }',
        'evaluater: [exact_match]',
        'defaults: { timout: 3 }',
        'thresholds: { success_rate: { minimun: 0.5 } }',
        'tests:',
        '  - { id: a, input: hi, expcted: hi, evaluators: [{ name: contains, wieght: 2 }] }',
        '  - { id: b, input: hi, zzzzzzzz: 1, "<<": x }',
        '',
      ].join('\n'),
    );
    const { issues } = await validateSuite(path);
    const text = issues.map((i) => `${i.line}:${i.col} ${i.path}: ${i.message}`).join('\n');
    expect(text).toMatch(/^3:1 agnet: unknown field 'agnet'; did you mean 'agent'\?$/m);
    expect(text).toMatch(/^4:1 evaluater: unknown field 'evaluater'; did you mean 'evaluators'\?$/m);
    expect(text).toMatch(/^5:13 defaults\.timout: unknown field 'timout'; did you mean 'timeout'\?$/m);
    expect(text).toMatch(/thresholds\.success_rate\.minimun: unknown field 'minimun'; did you mean 'minimum'\?$/m);
    expect(text).toMatch(/^8:25 tests\.0\.expcted: unknown field 'expcted'; did you mean 'expected'\?$/m);
    expect(text).toMatch(/tests\.0\.evaluators\.0\.wieght: unknown field 'wieght'; did you mean 'weight'\?$/m);
    expect(text).toMatch(/tests\.1\.zzzzzzzz: unknown field 'zzzzzzzz'$/m);
    expect(text).toMatch(/tests\.1\.<<: unknown field '<<'$/m);
  });
});
