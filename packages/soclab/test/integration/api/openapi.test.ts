import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Json, startServer } from '../../helpers/api.js';

type Op = { operationId?: string; security?: unknown[]; responses: Record<string, Json> };

let server: Awaited<ReturnType<typeof startServer>>;
let doc: Json;
let operations: { path: string; method: string; op: Op }[];

beforeAll(async () => {
  server = await startServer();
  doc = (await call(server.base, 'GET', '/api/openapi.json')).body;
  operations = Object.entries(doc.paths as Record<string, Record<string, Op>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ path, method, op })),
  );
});

afterAll(async () => {
  await server?.close();
});

describe('soclab OpenAPI document', () => {
  it('passes an independent OpenAPI validator (the official 3.0 schema)', async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('names every operation uniquely and lists the server', () => {
    expect(operations.length).toBeGreaterThan(10);
    const ids = operations.map((o) => o.op.operationId);
    expect(ids.filter((id) => !id)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.servers?.[0]?.url).toBe('/');
  });

  it('marks public routes security: [] and declares 401/429 on every authenticated one', () => {
    for (const { path, method, op } of operations) {
      const where = `${method.toUpperCase()} ${path}`;
      if (op.security && op.security.length === 0) {
        expect(op.responses['401'], where).toBeUndefined();
        continue;
      }
      expect(op.security, `${where} has no security requirement`).toEqual([{ bearerAuth: [] }]);
      for (const status of ['401', '429', '500']) expect(op.responses[status], `${where} ${status}`).toBeDefined();
    }
    const health = operations.find((o) => o.path === '/api/v1/health');
    expect(health?.op.security).toEqual([]);
  });

  it('declares 403 where a viewer is refused, 422 where ids are validated, errors as the shared Error schema', () => {
    const create = operations.find((o) => o.path === '/api/v1/campaigns' && o.method === 'post');
    expect(create?.op.responses['403']).toBeDefined();
    const scenario = operations.find((o) => o.path === '/api/v1/scenarios/{scenario_id}');
    expect(scenario?.op.responses['422']).toBeDefined();
    expect(doc.components.schemas.Error).toBeDefined();
    for (const { op } of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        expect(response.content?.['application/json']?.schema?.$ref).toBe('#/components/schemas/Error');
      }
    }
  });

  it('describes the JSON report as the scorecard object, and HTML/PDF report errors as JSON', () => {
    const json = operations.find((o) => o.path === '/api/v1/campaigns/{id}/reports/{audience}/json');
    const schema = json?.op.responses['200']?.content?.['application/json']?.schema;
    expect(schema?.type).toBe('object');
    expect(Object.keys(schema?.properties ?? {})).toEqual(expect.arrayContaining(['schema', 'assessment', 'runs']));
    const pdf = operations.find((o) => o.path === '/api/v1/campaigns/{id}/reports/executive/pdf');
    expect(Object.keys(pdf?.op.responses['200']?.content ?? {})).toEqual(['application/pdf']);
    expect(Object.keys(pdf?.op.responses['501']?.content ?? {})).toEqual(['application/json']);
  });

  it('answers what it declares: 422 for a malformed scenario id, 401 without a token (checked by the client hook)', async () => {
    expect((await call(server.base, 'GET', '/api/v1/scenarios/NOPE', { as: 'viewer' })).status).toBe(422);
    expect((await call(server.base, 'GET', '/api/v1/scenarios')).status).toBe(401);
    expect((await call(server.base, 'POST', '/api/v1/campaigns', { as: 'viewer', body: {} })).status).toBe(403);
  });

  it('catalog responses match their real models (incident, scenarios, providers), checked by the client hook', async () => {
    const incidents = await call(server.base, 'GET', '/api/v1/incidents', { as: 'viewer' });
    expect(incidents.status).toBe(200);
    const id = incidents.body[0].id as string;
    const incident = await call(server.base, 'GET', `/api/v1/incidents/${id}`, { as: 'viewer' });
    expect(incident.body.siem_event_count).toBeGreaterThan(0);
    const scenario = await call(server.base, 'GET', '/api/v1/scenarios/ATK-001', { as: 'viewer' });
    expect(scenario.body.id).toBe('ATK-001');
    expect((await call(server.base, 'GET', '/api/v1/providers', { as: 'viewer' })).status).toBe(200);
    for (const name of ['IncidentDetail', 'ScenarioRow', 'ScenarioDetail']) {
      expect(doc.components.schemas[name]?.properties, name).toBeDefined();
    }
  });
});
