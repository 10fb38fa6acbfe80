import { hostname } from 'node:os';
import type { createCB as CreateCB } from 'xmlbuilder2';
import { z } from 'zod';
import type { CaseStatus, TestCaseResult } from '../core/result.js';
import { defineReporter } from './base.js';
import { renderTo } from './support/sink.js';
import { asView, outputOf, reasonOf } from './support/text.js';

const JunitOptions = z.strictObject({
  /** Put the agent output in `<system-out>` (truncated to `max_output_chars`). */
  include_output: z.boolean().default(true),
  max_output_chars: z.number().int().min(0).default(4_000),
});
export type JunitOptions = z.infer<typeof JunitOptions>;

/** Bits per test id, to spot cases whose repeats disagree (flaky). */
const PASSED = 1;
const NOT_PASSED = 2;

/**
 * JUnit XML for CI test tabs (GitHub, GitLab, Jenkins, Azure): one `<testcase>` per case x repeat, `<failure>` with
 * every failing evaluator's explanation, `<error>` for agent errors, `<skipped>`. The file validates against both
 * the Jenkins junit-4 and the Ant junit-10 schemas, so it holds only what they allow: run facts are suite
 * `<property>` elements; a case's score, evaluator scores and flakiness open its `<system-out>` (testcases may not
 * carry properties), followed by the agent output; the suite always ends with `<system-out>`/`<system-err>` (Ant
 * requires them). Characters XML cannot hold are replaced.
 *
 * @example harness export runs/latest --format junit --out junit.xml
 */
export const junitReporter = defineReporter({
  name: 'junit',
  description: 'JUnit XML: one testcase per case x repeat, evaluator scores as properties',
  extension: 'xml',
  options: JunitOptions as z.ZodType<JunitOptions>,
  create(options) {
    const o = JunitOptions.parse(options ?? {});
    return {
      name: 'junit',
      async report(run, destination) {
        const view = asView(run);
        const h = view.header;
        const counts: Record<CaseStatus, number> = { passed: 0, failed: 0, error: 0, skipped: 0 };
        let time = 0;
        const outcomes = new Map<string, number>();
        let maxRepeat = 0;
        for await (const r of view.results()) {
          counts[r.status]++;
          time += r.duration;
          if (r.repeat > maxRepeat) maxRepeat = r.repeat;
          if (r.status !== 'skipped') {
            outcomes.set(r.test_id, (outcomes.get(r.test_id) ?? 0) | (r.status === 'passed' ? PASSED : NOT_PASSED));
          }
        }
        const tests = counts.passed + counts.failed + counts.error + counts.skipped;
        // `skipped` is a suite attribute only: junit-4 and junit-10 both reject it on <testsuites>.
        const totals = {
          tests: String(tests),
          failures: String(counts.failed),
          errors: String(counts.error),
          time: seconds(time),
        };
        // Loaded on first use: keeps `harness --version` and `list-plugins` from paying for the XML builder.
        const { createCB } = await import('xmlbuilder2');
        return renderTo(destination, async (sink) => {
          let buffer: string[] = [];
          let failure: Error | null = null;
          const xml = createCB({
            data: (chunk: string) => {
              buffer.push(chunk);
            },
            error: (err: Error) => {
              failure = err;
            },
            prettyPrint: true,
          });
          const flush = async () => {
            if (failure) throw failure;
            if (buffer.length > 0) {
              const text = buffer.join('');
              buffer = [];
              await sink.write(text);
            }
          };
          xml.dec({ version: '1.0', encoding: 'UTF-8' });
          xml.ele('testsuites', { name: xmlSafe(h.name), ...totals });
          xml.ele('testsuite', {
            name: xmlSafe(h.suite.name),
            ...totals,
            skipped: String(counts.skipped),
            timestamp: h.started_at,
            hostname: hostname(),
            id: xmlSafe(h.id),
          });
          xml.ele('properties');
          const props: Array<[string, string]> = [
            ['experiment.id', h.id],
            ['experiment.state', h.state],
            ['suite.version', h.suite.version],
            ['suite.content_hash', h.suite.content_hash],
            ['agent.adapter', h.agent.adapter],
          ];
          if (h.agent.label) props.push(['agent.label', h.agent.label]);
          if (h.agent.version) props.push(['agent.version', h.agent.version]);
          for (const m of Object.values(h.metrics)) {
            props.push([`metric.${m.name}`, String(m.value)]);
            if (m.interval) props.push([`metric.${m.name}.interval`, `${m.interval.lower},${m.interval.upper}`]);
          }
          for (const [name, value] of props) xml.ele('property', { name: xmlSafe(name), value: xmlSafe(value) }).up();
          xml.up();
          await flush();
          for await (const r of view.results()) {
            testcase(xml, r, h.suite.name, maxRepeat > 0, outcomes.get(r.test_id) === (PASSED | NOT_PASSED), o);
            await flush();
          }
          xml
            .ele('system-out')
            .txt(xmlSafe(`run ${h.id}: ${counts.passed}/${tests} passed`))
            .up();
          xml.ele('system-err').up();
          xml.up().up().end();
          await flush();
        });
      },
    };
  },
});

type Builder = ReturnType<typeof CreateCB>;

function testcase(
  xml: Builder,
  r: TestCaseResult,
  suite: string,
  repeats: boolean,
  flaky: boolean,
  o: JunitOptions,
): void {
  const name = (r.test_name || r.test_id) + (repeats ? ` [repeat ${r.repeat}]` : '');
  xml.ele('testcase', { name: xmlSafe(name), classname: xmlSafe(`${suite}.${r.test_id}`), time: seconds(r.duration) });
  // What used to be per-case <property> elements: junit-4 and junit-10 allow none inside <testcase>.
  const facts: string[] = [`test_id: ${r.test_id}`, `repeat: ${r.repeat}`, `score: ${r.score}`];
  if (r.attempts > 1) facts.push(`attempts: ${r.attempts}`);
  if (r.tags.length > 0) facts.push(`tags: ${r.tags.join(',')}`);
  if (flaky) facts.push('flaky: true');
  for (const e of r.evaluations) facts.push(`evaluator.${e.evaluator}: score ${e.score}, passed ${e.passed}`);
  if (r.status === 'error') {
    const err = r.output.error ?? 'agent error';
    xml
      .ele('error', { message: xmlSafe(firstLine(err)), type: 'agent_error' })
      .txt(xmlSafe(err))
      .up();
  } else if (r.status === 'failed') {
    const failing = r.evaluations.filter((e) => !e.passed);
    const body =
      failing.length > 0
        ? failing
            .map(
              (e) =>
                `[${e.evaluator}] score ${e.score.toFixed(3)}${e.error ? ' (evaluator error)' : ''}${e.explanation ? `: ${e.explanation}` : ''}`,
            )
            .join('\n')
        : reasonOf(r) || 'case did not pass';
    xml
      .ele('failure', { message: xmlSafe(firstLine(reasonOf(r) || 'case did not pass')), type: 'evaluation' })
      .txt(xmlSafe(body))
      .up();
  } else if (r.status === 'skipped') {
    // junit-4 types <skipped> as text: the reason goes in its body, not a `message` attribute.
    xml
      .ele('skipped')
      .txt(xmlSafe(firstLine(reasonOf(r) || 'skipped')))
      .up();
  }
  let out = o.include_output && r.status !== 'skipped' ? outputOf(r) : '';
  if (out.length > o.max_output_chars)
    out = `${out.slice(0, o.max_output_chars)}… (${out.length - o.max_output_chars} more characters)`;
  xml
    .ele('system-out')
    .txt(xmlSafe(out ? `${facts.join('\n')}\n${OUTPUT_MARK}\n${out}` : facts.join('\n')))
    .up();
  xml.up();
}

/** Separates a case's facts from the agent output in its `<system-out>`. */
export const OUTPUT_MARK = '--- output ---';

function seconds(x: number): string {
  return x.toFixed(3);
}

function firstLine(text: string): string {
  const line = text.split(/\r?\n/, 1)[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

// Characters XML 1.0 cannot represent (C0 controls other than tab/LF/CR, U+FFFE/U+FFFF, lone surrogates).
const XML_INVALID =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Replace characters that would make the file unparseable with U+FFFD. */
export function xmlSafe(text: string): string {
  return text.replace(XML_INVALID, '\ufffd');
}
