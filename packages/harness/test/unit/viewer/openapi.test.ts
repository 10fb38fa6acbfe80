import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { viewerOpenApi } from '../../../src/viewer/openapi.js';
import { responseChecker } from '../../helpers/openapi-check.js';

type Json = Record<string, unknown>;
const doc = viewerOpenApi() as Json & { paths: Record<string, Record<string, Json>> };
const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
  Object.entries(ops).map(([method, op]) => ({ path, method, op })),
);

describe('viewer OpenAPI document', () => {
  it('passes an independent OpenAPI 3.1 validator', async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('has a unique operationId on every operation, servers, and public security', () => {
    const ids = operations.map((o) => o.op.operationId);
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.servers).toEqual([{ url: '/' }]);
    expect(doc.security).toEqual([]);
  });

  it('declares the error schema for 400, 403 and 500 on every JSON route, and 404 on every run lookup', () => {
    for (const { path, op } of operations) {
      const responses = op.responses as Record<string, Json>;
      if (path === '/api/openapi.json' || path === '/api/events') continue;
      for (const status of ['400', '403', '500']) expect(responses[status], `${path} ${status}`).toBeDefined();
      if (path.includes('{id}') || path.startsWith('/api/compare')) expect(responses['404'], path).toBeDefined();
    }
  });

  it('the response hook rejects what the document does not say (degenerate cases first)', () => {
    const check = responseChecker(doc, { notFoundSchema: 'Error' });
    const json = 'application/json';
    expect(() => check.check('GET', '/api/runs', 418, json, {})).toThrow(/status not declared/);
    expect(() => check.check('GET', '/api/runs', 200, json, { items: 'nope' })).toThrow(/does not match/);
    expect(() => check.check('GET', '/api/runs/x', 404, json, { message: 'no' })).toThrow(/does not match/);
    expect(() => check.check('GET', '/api/nowhere', 200, json, {})).toThrow(/no operation/);
    expect(() => check.check('GET', '/api/runs', 200, 'text/html', '<p>')).toThrow(/content-type/);
    // An error without its stable code, or with one that is not a harness code, is not what the document says.
    expect(() => check.check('GET', '/api/runs/x', 404, json, { error: 'run not found' })).toThrow(/does not match/);
    expect(() => check.check('GET', '/api/runs/x', 404, json, { error: 'no', code: 'ENOENT' })).toThrow(
      /does not match/,
    );
    check.check('GET', '/api/runs/abc', 404, json, {
      error: 'run not found',
      code: 'AEH_ERR_RUN_LOOKUP',
      candidates: ['abd'],
    });
    check.check('GET', '/api/health', 200, json, { ok: true, store: 'sqlite' });
  });
});
