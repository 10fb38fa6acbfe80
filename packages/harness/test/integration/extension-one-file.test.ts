import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// A new evaluator, metric, reporter or adapter is one new file (plus its test): each is written here into a user
// project outside the repository, named in the suite's `plugins:` (or `--plugin`), and is listed and used by the
// compiled CLI. Nothing in the packages is edited (docs/extending.md walks through the same steps).
const root = resolve(__dirname, '../../../..');
const bin = join(root, 'packages/harness/bin/harness.js');
const dir = mkdtempSync(join(tmpdir(), 'aeh-extension-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PLUGINS: Record<string, string> = {
  // An evaluator with a required option: its `example` lets list-plugins and the conformance checks build it.
  'plugins/mentions-word.ts': `import { z } from 'zod';
import { defineEvaluator, outputText, result } from '@aeh/harness';

defineEvaluator({
  name: 'mentions_word',
  description: 'Output mentions a given word (case-insensitive)',
  options: z.strictObject({ word: z.string().min(1) }),
  example: { word: 'refund' },
  create: (opts) => ({
    name: 'mentions_word',
    evaluate(_testCase, output) {
      const hit = outputText(output).toLowerCase().includes(opts.word.toLowerCase());
      return result({ evaluator: 'mentions_word', score: hit ? 1 : 0, passed: hit, explanation: hit ? 'found' : 'missing' });
    },
  }),
});
`,
  'plugins/passed-cases.ts': `import { z } from 'zod';
import { defineMetric, metricResult } from '@aeh/harness';

defineMetric({
  name: 'passed_cases',
  description: 'How many case runs passed',
  direction: 'higher_is_better',
  options: z.strictObject({}),
  create: () => ({
    name: 'passed_cases',
    direction: 'higher_is_better',
    calculate(results) {
      const n = results.filter((r) => r.status === 'passed').length;
      return metricResult({ name: 'passed_cases', value: n, formatted_value: String(n), sample_size: results.length });
    },
  }),
});
`,
  'plugins/case-lines.ts': `import { writeFileSync } from 'node:fs';
import { z } from 'zod';
import { defineReporter, isView, viewOf } from '@aeh/harness';

defineReporter({
  name: 'case_lines',
  description: 'One line per result: case id and status',
  extension: 'txt',
  options: z.strictObject({}),
  create: () => ({
    name: 'case_lines',
    async report(run, destination) {
      const view = isView(run) ? run : viewOf(run);
      let text = '';
      for await (const r of view.results()) text += \`\${r.test_id} \${r.status}\\n\`;
      if (destination) writeFileSync(destination, text);
      return text;
    },
  }),
});
`,
  'plugins/canned-agent.ts': `import { z } from 'zod';
import { agentOutput, defineAdapter } from '@aeh/harness';

defineAdapter({
  name: 'canned_agent',
  description: 'Answers every input with a fixed reply',
  options: z.strictObject({ reply: z.string() }),
  example: { reply: 'We refund within 30 days.' },
  create: (opts) => ({
    async run(input) {
      return agentOutput({ output: typeof input === 'string' && input.includes('refund') ? opts.reply : 'no idea' });
    },
  }),
});
`,
};

function harness(args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', CI: '' },
    timeout: 90_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('extension without collateral edits: one new file per plugin', () => {
  it('an evaluator, a metric, a reporter and an adapter from one file each are listed and used by a run', () => {
    // The user's project: an ES module package with the harness installed (here: the workspace's node_modules).
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'my-evals', private: true, type: 'module' }));
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
    mkdirSync(join(dir, 'plugins'));
    for (const [file, code] of Object.entries(PLUGINS)) writeFileSync(join(dir, file), code);

    const listed = harness([
      'list-plugins',
      '--json',
      ...Object.keys(PLUGINS).flatMap((file) => ['--plugin', `./${file}`]),
    ]);
    expect(listed.code, listed.stderr).toBe(0);
    const plugins = JSON.parse(listed.stdout) as Record<string, { name: string; example?: Record<string, unknown> }[]>;
    const find = (kind: string, name: string) => plugins[kind]?.find((p) => p.name === name);
    expect(find('evaluators', 'mentions_word')?.example).toEqual({ word: 'refund' });
    expect(find('metrics', 'passed_cases')).toBeDefined();
    expect(find('reporters', 'case_lines')).toBeDefined();
    expect(find('adapters', 'canned_agent')?.example).toEqual({ reply: 'We refund within 30 days.' });
    // The text listing shows the example under the plugin that needs one.
    const text = harness(['list-plugins', 'evaluators', '--plugin', './plugins/mentions-word.ts']);
    expect(text.stdout).toMatch(
      /mentions_word\s+Output mentions a given word[^\n]*\n\s+e\.g\. options: \{"word":"refund"\}/,
    );

    writeFileSync(
      join(dir, 'suite.yaml'),
      [
        'version: "1.0"',
        'name: refunds',
        `plugins: [${Object.keys(PLUGINS)
          .map((f) => `./${f}`)
          .join(', ')}]`,
        'agent: { adapter: canned_agent, options: { reply: "Refunds take 30 days." } }',
        'evaluators: [{ name: mentions_word, options: { word: refund } }]',
        'metrics: [success_rate, passed_cases]',
        'tests:',
        '  - { id: asks-refund, input: "How long does a refund take?" }',
        '  - { id: off-topic, input: "What is the weather?" }',
      ].join('\n'),
    );
    const run = harness(['run', 'suite.yaml', '--out', 'runs/r1', '--format', 'json,case_lines', '--no-index']);
    expect(run.code, run.stderr).toBe(0);
    const experiment = JSON.parse(readFileSync(join(dir, 'runs/r1/experiment.json'), 'utf8'));
    expect(experiment.metrics.passed_cases).toMatchObject({ value: 1, direction: 'higher_is_better' });
    expect(experiment.metrics.success_rate.value).toBe(0.5);
    // The reporter wrote its file in the run folder: the adapter's reply passed the evaluator on one case only.
    expect(readFileSync(join(dir, 'runs/r1/report.txt'), 'utf8')).toBe('asks-refund passed\noff-topic failed\n');
  }, 180_000);
});
