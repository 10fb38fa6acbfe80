import { describe, expect, it } from 'vitest';
import { compileTemplate, compileUrlTemplate, TemplateError } from '../../../../src/adapters/http/template.js';

const scope = {
  input: { question: 'What is 2+2?', tags: ['math'] },
  vars: { user: 'ann', n: 3 },
  env: { API_KEY: 'k-1' },
  test: { id: 'case-1' },
  repeat: 0,
  attempt: 1,
};

describe('compileTemplate', () => {
  it('keeps the type of a value that is exactly one expression in a JSON body', () => {
    const t = compileTemplate({ q: '{{input.question}}', all: '{{input}}', n: '{{vars.n}}', fixed: 1 }, 'body');
    expect(t.render(scope)).toEqual({ q: 'What is 2+2?', all: scope.input, n: 3, fixed: 1 });
  });

  it('interpolates into text, with objects as JSON and filters', () => {
    const t = compileTemplate(
      'u={{vars.user}} in={{input.tags}} id={{test.id | urlencode}} j={{vars.user | json}}',
      'url',
    );
    expect(t.renderText(scope)).toBe('u=ann in=["math"] id=case-1 j="ann"');
    expect(compileTemplate({ a: '{{vars.n}}' }, 'query').renderText(scope)).toEqual({ a: '3' });
  });

  it('templates object keys and nested arrays', () => {
    const t = compileTemplate({ '{{vars.user}}': ['{{repeat}}', '{{attempt}}'] }, 'body');
    expect(t.render(scope)).toEqual({ ann: [0, 1] });
  });

  it('reports the environment names it reads', () => {
    expect(compileTemplate({ h: 'Key {{env.API_KEY}}', x: "{{env['OTHER']}}" }, 'headers').envNames).toEqual([
      'API_KEY',
      'OTHER',
    ]);
  });

  it('fails loudly for unknown roots, filters and unresolved paths, naming the option', () => {
    expect(() => compileTemplate('{{inptu}}', 'body.q')).toThrowError(/body.q: unknown template variable 'inptu'/);
    expect(() => compileTemplate('{{input | upper}}', 'url')).toThrowError(/unknown filter 'upper'/);
    const t = compileTemplate({ q: '{{vars.missing}}' }, 'body');
    expect(() => t.render(scope)).toThrowError(TemplateError);
    expect(() => t.render(scope)).toThrowError(/body.q: '\{\{vars.missing\}\}' did not resolve/);
    expect(() => compileTemplate('{{input.question}}', 'url').renderText({ ...scope, input: 'plain' })).toThrowError(
      /did not resolve/,
    );
  });

  it('leaves text without expressions untouched', () => {
    const t = compileTemplate('plain {text}', 'url');
    expect(t.dynamic).toBe(false);
    expect(t.renderText(scope)).toBe('plain {text}');
  });
});

describe('compileUrlTemplate', () => {
  const url = (template: string, input: string, vars: Record<string, unknown> = {}) =>
    compileUrlTemplate(template, 'url').renderText({ input, vars, env: { BASE: 'http://h:1/base' } });

  it('percent-encodes values in the path, query and fragment, never in the origin', () => {
    expect(url('http://h/a/{{input}}/b', '../../admin')).toBe('http://h/a/..%2F..%2Fadmin/b');
    expect(url('http://h/s?q={{input}}&x=1', 'a&b=c')).toBe('http://h/s?q=a%26b%3Dc&x=1');
    expect(url('http://h/s#{{input}}', 'a b')).toBe('http://h/s#a%20b');
    expect(url('{{env.BASE}}/{{input}}', 'x/y')).toBe('http://h:1/base/x%2Fy');
    expect(url('http://{{vars.host}}/{{input}}', 'x/y', { host: 'h:2' })).toBe('http://h:2/x%2Fy');
  });

  it('refuses a whole . or .. segment, allows dots inside a segment', () => {
    expect(() => url('http://h/a/{{input}}', '..')).toThrowError(TemplateError);
    expect(() => url('http://h/a/{{input}}/b', '.')).toThrowError(/makes the URL path segment '\.'/);
    expect(url('http://h/a/{{input}}', '...')).toBe('http://h/a/...');
    expect(url('http://h/a/{{input}}.txt', '..')).toBe('http://h/a/...txt');
    expect(() => url('http://h/a/{{vars.x}}{{vars.y}}/b', '', { x: '.', y: '.' })).toThrowError(/segment '\.\.'/);
  });

  it('| raw inserts as is and | urlencode encodes once', () => {
    expect(url('http://h/{{vars.r | raw}}', '', { r: 'v1/chat' })).toBe('http://h/v1/chat');
    expect(url('http://h/{{input | urlencode}}', 'a/b')).toBe('http://h/a%2Fb');
    expect(() => compileUrlTemplate('http://h/{{input | rwa}}', 'url')).toThrowError(
      /unknown filter 'rwa' .*expected json, urlencode or raw/,
    );
  });
});
