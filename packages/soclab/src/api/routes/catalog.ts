import { CompatibilityResult } from '@aeh/models';
import { z } from 'zod';
import { Difficulty, ScoreFamily } from '../../contracts/enums.js';
import { IncidentScenario, needsMock } from '../../contracts/scenarios.js';
import { DEFAULT_CANARY_PATTERNS, redact } from '../../control/redaction.js';
import { soclabProviderRegistry } from '../../providers/registry.js';
import { loadFixture } from '../../simulator/fixture.js';
import { type ApiApp, type ApiContext, BEARER } from '../context.js';
import { notFound } from '../errors.js';
import { ErrorBody, IncidentParams, ScenarioParams } from '../schemas.js';

const safe = <T>(value: T): T => redact(value, DEFAULT_CANARY_PATTERNS);

// Response models (issue 18: no opaque objects in the OpenAPI document). The incident is the corpus's own model;
// a scenario row is the listing's projection of the AttackScenario model.
const Incident = IncidentScenario.unwrap();
const IncidentDetail = Incident.extend({
  fixture_version: z.string(),
  fixture_sha256: z.string(),
  users: z.array(z.string()),
  endpoints: z.array(z.string()),
  siem_event_count: z.number().int(),
  injected_event_ids: z.array(z.string()),
}).meta({ id: 'IncidentDetail' });
const ScenarioRow = z
  .object({
    id: z.string(),
    version: z.string(),
    title: z.string(),
    description: z.string(),
    attack_class: z.string().describe('`none` for a benign control'),
    benign: z.boolean(),
    family: ScoreFamily,
    difficulty: Difficulty,
    expected_control: z.string(),
    oracle: z.string().nullable().optional().describe('the attack oracle, or the false-block oracle of a control'),
    atlas: z.array(z.string()).describe('MITRE ATLAS technique ids'),
    owasp_llm: z.array(z.string()).describe('OWASP LLM Top 10 ids'),
    harness_attacks: z.array(z.string()),
    needs_mock: z.boolean().describe('the scenario scripts the model, so only the mock provider can run it'),
  })
  .meta({ id: 'ScenarioRow' });
const ScenarioDetail = ScenarioRow.extend({ limitations: z.array(z.string()).readonly() }).meta({
  id: 'ScenarioDetail',
});

/** Incidents, the scenario corpus and the providers: what a campaign can be made of. */
export function registerCatalogRoutes(app: ApiApp, ctx: ApiContext): void {
  const { corpus } = ctx;
  const incident = corpus.incident;
  const fixture = loadFixture(incident.fixture);
  const injected = Object.values(fixture.data.injections).flatMap((point) =>
    point.operations.flatMap((op) =>
      op.op === 'insert_siem_event' && typeof op.event.event_id === 'string' ? [op.event.event_id] : [],
    ),
  );
  const incidentDetail = safe({
    ...incident,
    fixture_version: fixture.version,
    fixture_sha256: fixture.sha256,
    users: Object.keys(fixture.data.users).sort(),
    endpoints: Object.keys(fixture.data.endpoints).sort(),
    siem_event_count: fixture.data.siem_events.length,
    injected_event_ids: [...new Set(injected)].sort(),
  });

  const scenarioRow = (s: (typeof corpus.all)[number]) => ({
    id: s.id,
    version: s.version,
    title: s.title,
    description: s.description,
    attack_class: s.attack_class,
    benign: s.attack_class === 'none',
    family: s.family,
    difficulty: s.difficulty,
    expected_control: s.expected_control,
    oracle: s.oracle.attack_succeeded_if ?? s.oracle.false_block_if,
    atlas: s.atlas.map((a) => a.id),
    owasp_llm: s.owasp_llm.map((o) => o.id),
    harness_attacks: Object.entries(s.harness)
      .filter(([, on]) => on)
      .map(([name]) => name),
    needs_mock: needsMock(s),
  });
  // The corpus is fixed for the server's lifetime: serialize the listing once.
  const scenarioList = JSON.stringify(safe(corpus.all.map(scenarioRow)));
  const scenarioById = new Map(corpus.all.map((s) => [s.id, safe({ ...scenarioRow(s), limitations: s.limitations })]));

  app.get(
    '/api/v1/incidents',
    {
      config: { permission: 'read' },
      schema: {
        tags: ['catalog'],
        summary: 'The incidents campaigns investigate',
        security: BEARER,
        response: { 200: z.array(Incident) },
      },
    },
    async () => [safe({ ...incident })],
  );

  app.get(
    '/api/v1/incidents/:incident_id',
    {
      config: { permission: 'read' },
      schema: {
        tags: ['catalog'],
        summary: 'One incident with its fixture facts',
        security: BEARER,
        params: IncidentParams,
        response: { 200: IncidentDetail, 404: ErrorBody },
      },
    },
    async (request) => {
      if (request.params.incident_id !== incident.id) throw notFound(`incident ${request.params.incident_id}`);
      return incidentDetail;
    },
  );

  app.get(
    '/api/v1/scenarios',
    {
      config: { permission: 'read' },
      schema: {
        tags: ['catalog'],
        summary: 'The scenario corpus: attacks and benign controls',
        security: BEARER,
        response: { 200: z.array(ScenarioRow) },
      },
    },
    async (_request, reply) =>
      reply.type('application/json; charset=utf-8').send(scenarioList as unknown as z.infer<typeof ScenarioRow>[]),
  );

  app.get(
    '/api/v1/scenarios/:scenario_id',
    {
      config: { permission: 'read' },
      schema: {
        tags: ['catalog'],
        summary: 'One scenario',
        security: BEARER,
        params: ScenarioParams,
        response: { 200: ScenarioDetail, 404: ErrorBody },
      },
    },
    async (request) => {
      const s = scenarioById.get(request.params.scenario_id);
      if (!s) throw notFound(`scenario ${request.params.scenario_id}`);
      return s;
    },
  );

  app.get(
    '/api/v1/providers',
    {
      config: { permission: 'read' },
      schema: {
        tags: ['catalog'],
        summary: 'Model providers: capabilities, whether each is configured and approved',
        security: BEARER,
        response: { 200: z.array(CompatibilityResult) },
      },
    },
    // Read per request: configuration comes from the environment and may change between calls.
    async () => safe(soclabProviderRegistry({ env: ctx.env }).matrix()),
  );
}
