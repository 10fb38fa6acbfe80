import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPORT_SCRIPT } from '../../../src/reporters/html/assets.js';
import { jsonForScript } from '../../../src/reporters/html/embed.js';
import { htmlReporter } from '../../../src/reporters/html.js';
import { defined } from '../../helpers/defined.js';
import { cases, experiment } from '../comparison/fixtures.js';

const ATTACK = '</script><script>alert("pwned")</script><img src=x onerror=alert(1)>';

function hostileRun() {
  const run = experiment(
    'html-run',
    cases(
      6,
      (i) => i % 2 === 0,
      (i) => ({
        output: i === 1 ? `answer ${ATTACK} \u2028 done` : `answer ${i}`,
        input: i === 1 ? `question <!-- ${ATTACK}` : `question ${i}`,
        name: i === 3 ? `name ${ATTACK}` : `case ${i}`,
      }),
    ),
    {
      name: `suite ${ATTACK}`,
      metrics: {
        success_rate: {
          name: 'success_rate',
          value: 0.5,
          formatted_value: '50.0%',
          interval: { lower: 0.19, upper: 0.81 },
          description: `described ${ATTACK}`,
        },
      },
    },
  );
  const r1 = defined(run.results[1], 'result 1');
  r1.tags = ['billing', `tag ${ATTACK}`];
  defined(r1.evaluations[0], 'the first evaluation of result 1').explanation = `explained ${ATTACK}`;
  r1.output.tool_calls = [
    {
      tool_name: 'lookup',
      args: { q: ATTACK },
      result: { html: ATTACK },
      duration: 0.2,
      status: 'success',
      error: null,
    },
  ];
  return run;
}

function dataBlock(html: string): unknown[] {
  const start = html.indexOf('<script type="application/json" id="aeh-cases">');
  const body = html.slice(start + '<script type="application/json" id="aeh-cases">'.length);
  return JSON.parse(body.slice(0, body.indexOf('</script>'))) as unknown[];
}

describe('html reporter', () => {
  it('escapes <script> and other markup from agent output, names, inputs, tags and explanations', async () => {
    const html = await htmlReporter.create({} as never).report(hostileRun());
    // Exactly two script elements: the JSON data block and the report's own behaviour.
    expect(html.match(/<script/gi)).toHaveLength(2);
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('answer &lt;/script&gt;&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;');
    expect(html).toContain('name &lt;/script&gt;');
    expect(html).toContain('described &lt;/script&gt;');
    expect(html).toContain('<title>Evaluation report: suite &lt;/script&gt;');
  });

  it('embeds per-case data as script-safe JSON that reads back exactly', async () => {
    const run = hostileRun();
    const html = await htmlReporter.create({} as never).report(run);
    const data = dataBlock(html) as Array<{
      output: string;
      input: string;
      evaluations: Array<{ explanation: string }>;
      tool_calls: Array<{ tool_name: string; args: string; result: string }>;
    }>;
    expect(data).toHaveLength(6);
    expect(data[1]?.output).toBe(`answer ${ATTACK} \u2028 done`);
    expect(data[1]?.input).toBe(`question <!-- ${ATTACK}`);
    expect(data[1]?.evaluations[0]?.explanation).toBe(`explained ${ATTACK}`);
    expect(data[1]?.tool_calls[0]?.tool_name).toBe('lookup');
    expect(JSON.parse(defined(data[1]?.tool_calls[0], 'the first tool call of row 1').args)).toEqual({ q: ATTACK });
    expect(jsonForScript('</script>&\u2028\u2029')).toBe('"\\u003c/script\\u003e\\u0026\\u2028\\u2029"');
  });

  it('is self-contained: no external resources, and a CSP that allows only its own script', async () => {
    const html = await htmlReporter.create({} as never).report(hostileRun());
    // No element loads anything: no link/iframe/object elements, no src or href attribute on any tag.
    const tagsOnly = html.replace(/"[^"]*"/g, '""');
    expect(tagsOnly).not.toMatch(/<(link|iframe|object|embed|img)\b/i);
    expect(tagsOnly).not.toMatch(/<[a-z][^>]*\s(src|href)=/i);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1] ?? '';
    expect(csp).toContain("default-src 'none'");
    const script = html.slice(html.lastIndexOf('<script>') + '<script>'.length, html.lastIndexOf('</script>'));
    const hash = createHash('sha256').update(script).digest('base64');
    expect(csp).toContain(`script-src 'sha256-${hash}'`);
  });

  it('shows metric intervals, inline SVG charts, filters, the case grid and one data record per case run', async () => {
    const html = await htmlReporter.create({} as never).report(hostileRun());
    expect(html).toContain('0.19 – 0.81');
    expect(html.match(/<svg/g)?.length).toBeGreaterThanOrEqual(4);
    expect(html).toContain('id="f-status"');
    expect(html).toContain('<option value="failed">failed</option>');
    expect(html).toContain('<option value="exact_match">failed exact_match</option>');
    expect(html).toContain('id="grid-viewport"');
    const data = dataBlock(html) as Array<{ status: string; failed: string[]; reason: string }>;
    expect(data.map((d) => d.status)).toEqual(['passed', 'failed', 'passed', 'failed', 'passed', 'failed']);
    expect(data[1]?.failed).toEqual(['exact_match']);
    expect(data[1]?.reason).toContain('exact_match: explained');
  });

  it('lists the cases that did not pass in a no-script fallback table, escaped by React', async () => {
    const html = await htmlReporter.create({} as never).report(hostileRun());
    const fallback = html.slice(html.indexOf('<noscript>'), html.indexOf('</noscript>'));
    expect(fallback.match(/<tr>/g)).toHaveLength(4);
    expect(fallback).toContain('answer &lt;/script&gt;');
  });

  it("keeps the report's own script free of characters an HTML parser would rewrite (the CSP hash must match)", () => {
    expect(REPORT_SCRIPT).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u2028\u2029]/);
    expect(REPORT_SCRIPT.toLowerCase()).not.toContain('</script');
  });

  it('keeps every failing case when it has to cap the embedded cases, and says how many it left out', async () => {
    const run = experiment(
      'cap',
      cases(50, (i) => i % 10 !== 0),
    );
    const html = await htmlReporter.create({ max_rows: 12 } as never).report(run);
    const data = dataBlock(html) as Array<{ status: string }>;
    expect(data).toHaveLength(12);
    expect(data.filter((d) => d.status === 'failed')).toHaveLength(5);
    expect(html).toContain('Showing 12 of 50 case runs');
  });

  it('writes the file (parent folders created) and returns the same document', async () => {
    const dest = join(mkdtempSync(join(tmpdir(), 'aeh-html-')), 'reports', 'report.html');
    const html = await htmlReporter.create({} as never).report(hostileRun(), dest);
    expect(readFileSync(dest, 'utf8')).toBe(html);
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html.trimEnd().endsWith('</html>')).toBe(true);
  });
});
