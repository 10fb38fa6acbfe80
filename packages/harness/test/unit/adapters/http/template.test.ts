import { describe, expect, it } from 'vitest';
import { compileTemplate, TemplateError } from '../../../../src/adapters/http/template.js';

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
