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
 * JUnit XML for CI test tabs (GitHub, GitLab, Jenkins, Azure): one `<testcase>` per case x repeat, evaluator
 * scores as `<property>` elements, `<failure>` with every failing evaluator's explanation, `<error>` for agent
 * errors, `<skipped>`; cases whose repeats disagree carry `flaky=true`. Characters XML cannot hold are replaced.
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
        const totals = {
          tests: String(tests),
          failures: String(counts.failed),
          errors: String(counts.error),
          skipped: String(counts.skipped),
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
  xml.ele('properties');
  const prop = (n: string, v: string) => xml.ele('property', { name: xmlSafe(n), value: xmlSafe(v) }).up();
  prop('test_id', r.test_id);
  prop('repeat', String(r.repeat));
  prop('score', String(r.score));
  if (r.attempts > 1) prop('attempts', String(r.attempts));
  if (r.tags.length > 0) prop('tags', r.tags.join(','));
  if (flaky) prop('flaky', 'true');
  for (const e of r.evaluations) {
    prop(`evaluator.${e.evaluator}.score`, String(e.score));
    prop(`evaluator.${e.evaluator}.passed`, String(e.passed));
  }
  xml.up();
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
    xml.ele('skipped', { message: xmlSafe(firstLine(reasonOf(r) || 'skipped')) }).up();
  }
  if (o.include_output && r.status !== 'skipped') {
    let out = outputOf(r);
    if (out.length > o.max_output_chars)
      out = `${out.slice(0, o.max_output_chars)}… (${out.length - o.max_output_chars} more characters)`;
    if (out) xml.ele('system-out').txt(xmlSafe(out)).up();
  }
  xml.up();
}

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
