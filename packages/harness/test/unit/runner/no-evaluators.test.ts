import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadBuiltins } from '../../../src/cli/common.js';
import { agentOutput } from '../../../src/core/agent.js';
import type { TestCaseResult } from '../../../src/core/result.js';
import type { TestCase } from '../../../src/core/testcase.js';
import { reasonOf } from '../../../src/reporters/support/text.js';
import { AgentRunner, NO_EVALUATOR_NOTE } from '../../../src/runner/agent-runner.js';
import { loadSuite } from '../../../src/suites/loader.js';
import { defined } from '../../helpers/defined.js';

beforeAll(loadBuiltins);

/** Defect 5: a suite with no evaluators anywhere (the seed's rule, documented in docs/suite-format.md). */
describe('a suite without evaluators', () => {
  it('judges cases that have an expected value with exact_match, and says why the others failed', async () => {
    const d = mkdtempSync(join(tmpdir(), 'aeh-noeval-'));
    const file = join(d, 'suite.yaml');
    writeFileSync(
      file,
      [
        'version: "1.0"',
        'name: no-evaluators',
        'agent: { adapter: echo }',
        'tests:',
        '  - { id: same, input: hello, expected: hello }',
        '  - { id: differs, input: hello, expected: goodbye }',
        '  - { id: nothing, input: hello }',
      ].join('\n'),
    );
    const suite = await loadSuite(file);
    const runner = new AgentRunner(
      { run: async (input) => agentOutput({ output: String(input) }) },
      { evaluators: suite.evaluators },
    );
    const cases: TestCase[] = [];
    for await (const c of suite.cases()) cases.push(c);
    // evaluateCase returns the full result (what the journal and every report read).
    const results = await Promise.all(cases.map((c) => runner.evaluateCase(c)));
    const byId: Record<string, TestCaseResult> = {};
    for (const r of results) if (r) byId[r.test_id] = r;
    expect(byId.nothing?.status).toBe('failed');
    expect(byId.nothing?.evaluations).toEqual([]);
    expect(reasonOf(defined(byId.nothing, 'case nothing'))).toBe(NO_EVALUATOR_NOTE);
    expect(byId.differs?.status).toBe('failed');
    expect(byId.differs?.evaluations.map((e) => e.evaluator)).toEqual(['exact_match']);
    expect(reasonOf(defined(byId.differs, 'case differs'))).toMatch(/^exact_match: /);
    expect(byId.same?.status).toBe('passed');
  });

  it("the suite's own evaluators still win over the fallback", async () => {
    const runner = new AgentRunner(
      { run: async () => agentOutput({ output: 'hello world' }) },
      { evaluators: [{ name: 'contains', options: { substring: 'world' }, weight: 1 }] },
    );
    const out = await runner.run([
      {
        id: 'c',
        name: 'c',
        description: null,
        input: 'x',
        expected: 'hello',
        evaluators: [],
        tags: [],
        metadata: {},
        timeout: null,
        repeat: null,
        vars: {},
      },
    ]);
    expect(out.results[0]?.evaluations.map((e) => e.evaluator)).toEqual(['contains']);
    expect(out.results[0]?.status).toBe('passed');
  });
});
