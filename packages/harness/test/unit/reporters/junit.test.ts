import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { junitReporter, OUTPUT_MARK } from '../../../src/reporters/junit.js';
import { defined } from '../../helpers/defined.js';
import { JUNIT_XSDS, validateXsd, XMLLINT_AVAILABLE, XMLLINT_SKIP } from '../../helpers/xmllint.js';
import { experiment } from '../comparison/fixtures.js';

type Props = { property: Array<{ '@_name': string; '@_value': string }> };
interface Case {
  '@_name': string;
  '@_classname': string;
  '@_time': string;
  properties?: unknown;
  failure?: { '@_message': string; '#text': string };
  error?: { '@_message': string; '#text': string };
  skipped?: unknown;
  'system-out'?: string;
}

function parse(xml: string) {
  expect(XMLValidator.validate(xml)).toBe(true);
  const parser = new XMLParser({
    ignoreAttributes: false,
    isArray: (name) => ['testcase', 'property', 'testsuite'].includes(name),
  });
  return parser.parse(xml) as {
    testsuites: {
      '@_tests': string;
      '@_failures': string;
      '@_errors': string;
      '@_skipped'?: string;
      testsuite: Array<{
        '@_tests': string;
        '@_failures': string;
        '@_skipped': string;
        properties: Props;
        testcase: Case[];
        'system-out': string;
      }>;
    };
  };
}

const prop = (c: { properties: Props }, name: string) =>
  c.properties.property.find((p) => p['@_name'] === name)?.['@_value'];

/** A case's facts (the lines before the output mark in its system-out). */
const facts = (c: Case) => (c['system-out'] ?? '').split(`\n${OUTPUT_MARK}\n`)[0]?.split('\n') ?? [];
const output = (c: Case) => (c['system-out'] ?? '').split(`\n${OUTPUT_MARK}\n`)[1];

// Two cases x two repeats, plus an agent error and a skipped case. Case "flip" passes once and fails once.
const run = experiment('junit-run', [
  { id: 'ok', repeat: 0, passed: true },
  { id: 'ok', repeat: 1, passed: true },
  {
    id: 'flip',
    repeat: 0,
    passed: false,
    output: 'bad <answer> & "stuff" \u0001\u0008 with control chars \ud800',
    evaluations: [
      { evaluator: 'contains', score: 0, passed: false, explanation: "expected 'Refund of $49.99' in output" },
      { evaluator: 'tool_usage', score: 0.5, passed: false, explanation: 'missing call: refund' },
      { evaluator: 'length', score: 1, passed: true },
    ],
  },
  { id: 'flip', repeat: 1, passed: true },
  { id: 'boom', status: 'error' },
  { id: 'later', status: 'skipped' },
]);
defined(run.results[4], 'result 4').output.error = 'connection refused\nat socket';

describe('junit reporter', () => {
  it('parses as XML with one testcase per case x repeat and the right counts', async () => {
    const xml = await junitReporter.create({} as never).report(run);
    const doc = parse(xml);
    expect(doc.testsuites).toMatchObject({ '@_tests': '6', '@_failures': '1', '@_errors': '1' });
    const suite = defined(doc.testsuites.testsuite[0], 'the testsuite');
    expect(suite['@_skipped']).toBe('1');
    expect(suite['system-out']).toBe('run junit-run: 3/6 passed');
    expect(suite.testcase).toHaveLength(6);
    expect(suite['@_tests']).toBe('6');
    expect(prop(suite, 'experiment.id')).toBe('junit-run');
    expect(suite.testcase.map((c) => c['@_name'])).toEqual([
      'case ok [repeat 0]',
      'case ok [repeat 1]',
      'case flip [repeat 0]',
      'case flip [repeat 1]',
      'case boom [repeat 0]',
      'case later [repeat 0]',
    ]);
    expect(suite.testcase.filter((c) => c.failure)).toHaveLength(1);
    expect(suite.testcase.filter((c) => c.error)).toHaveLength(1);
    expect(suite.testcase.filter((c) => c.skipped !== undefined)).toHaveLength(1);
  });

  it('carries evaluator scores in the case output and every failing explanation in the failure', async () => {
    const doc = parse(await junitReporter.create({} as never).report(run));
    const flip = defined(defined(doc.testsuites.testsuite[0], 'the testsuite').testcase[2], 'testcase 2');
    expect(flip['@_classname']).toBe('demo-suite.flip');
    expect(flip.properties).toBeUndefined();
    expect(facts(flip)).toEqual([
      'test_id: flip',
      'repeat: 0',
      'score: 0',
      'flaky: true',
      'evaluator.contains: score 0, passed false',
      'evaluator.tool_usage: score 0.5, passed false',
      'evaluator.length: score 1, passed true',
    ]);
    expect(flip.failure?.['@_message']).toBe("contains: expected 'Refund of $49.99' in output");
    expect(flip.failure?.['#text']).toContain("[contains] score 0.000: expected 'Refund of $49.99' in output");
    expect(flip.failure?.['#text']).toContain('[tool_usage] score 0.500: missing call: refund');
    expect(flip.failure?.['#text']).not.toContain('[length]');
    // Characters XML 1.0 cannot hold are replaced, markup characters escaped.
    expect(output(flip)).toBe('bad <answer> & "stuff" \ufffd\ufffd with control chars \ufffd');
    const ok = defined(defined(doc.testsuites.testsuite[0], 'the testsuite').testcase[0], 'testcase 0');
    expect(facts(ok)).not.toContain('flaky: true');
    const boom = defined(defined(doc.testsuites.testsuite[0], 'the testsuite').testcase[4], 'testcase 4');
    expect(boom.error?.['@_message']).toBe('connection refused');
    expect(boom.error?.['#text']).toBe('connection refused\nat socket');
  });

  it('names cases without a repeat suffix when nothing repeats, and writes the file', async () => {
    const single = experiment('one', [{ id: 'a', passed: true }]);
    const dest = join(mkdtempSync(join(tmpdir(), 'aeh-junit-')), 'a', 'junit.xml');
    const xml = await junitReporter.create({ include_output: false } as never).report(single, dest);
    expect(readFileSync(dest, 'utf8')).toBe(xml);
    const c = defined(defined(parse(xml).testsuites.testsuite[0], 'the testsuite').testcase[0], 'testcase 0');
    expect(c['@_name']).toBe('case a');
    expect(output(c)).toBeUndefined();
    expect(facts(c)).toContain('score: 1');
  });
});

describe.skipIf(!XMLLINT_AVAILABLE)(
  `junit reporter against the published JUnit schemas${XMLLINT_AVAILABLE ? '' : ` (${XMLLINT_SKIP})`}`,
  () => {
    const empty = experiment('empty', []);
    for (const [label, xsd] of Object.entries(JUNIT_XSDS)) {
      it(`validates against ${label}: a run with every status, an empty run, and a run without output`, async () => {
        for (const [exp, options] of [
          [run, {}],
          [empty, {}],
          [run, { include_output: false }],
        ] as const) {
          const xml = await junitReporter.create(options as never).report(exp);
          const verdict = validateXsd(xml, xsd);
          expect(verdict.valid, verdict.messages).toBe(true);
        }
      });

      it(`the validator is not a rubber stamp: ${label} rejects what the old reporter wrote`, () => {
        // The two shapes the issue reported: properties inside a testcase, and skipped on <testsuites>.
        const old = `<?xml version="1.0"?><testsuites tests="1" skipped="0"><testsuite name="s" tests="1" failures="0" errors="0"><properties><property name="a" value="b"/></properties><testcase name="c"><properties><property name="score" value="1"/></properties></testcase><system-out/><system-err/></testsuite></testsuites>`;
        const verdict = validateXsd(old, xsd);
        expect(verdict.valid).toBe(false);
        expect(verdict.messages).toMatch(/skipped|properties/);
      });
    }

    it('ant junit-10 requires the suite-level system-out and system-err', () => {
      const bare = `<?xml version="1.0"?><testsuites><testsuite name="s" tests="1" failures="0" errors="0"><testcase name="c"/></testsuite></testsuites>`;
      expect(validateXsd(bare, JUNIT_XSDS['ant junit-10']).valid).toBe(false);
      expect(validateXsd(bare, JUNIT_XSDS['jenkins junit-4']).valid).toBe(true);
    });
  },
);
