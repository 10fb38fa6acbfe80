import { z } from 'zod';
import { StoredAuditEvent } from '../../contracts/events.js';
import { DEFAULT_CANARY_PATTERNS, redact } from '../../control/redaction.js';
import { verifyRows } from '../../evidence/hash-chain.js';
import { runEnding } from '../../evidence/interrupted.js';
import { rowToEvent } from '../../evidence/store.js';
import { type ApiApp, type ApiContext, BEARER } from '../context.js';
import { notFound } from '../errors.js';
import { buildReplay } from '../replay.js';
import { ErrorBody, Page, RunParams } from '../schemas.js';

const Verification = z.object({
  run_id: z.string(),
  valid: z.boolean(),
  length: z.number().int(),
  root_hash: z.string().nullable(),
  first_invalid_sequence: z.number().int().nullable(),
  reason: z.string().nullable(),
});

const RunRow = Verification.extend({
  scenario_id: z.string().nullable(),
  mode: z.string().nullable(),
  campaign_id: z.string().nullable(),
  /** finished (run.finished), interrupted (closed by a restart: the process stopped mid-run) or open (running). */
  ending: z.enum(['finished', 'interrupted', 'open']),
});

/**
 * Evidence runs: the list with each chain's verification, a run's events (canary-redacted) and verification,
 * and its replay (the chain as reviewable steps). No route changes the store.
 */
export function registerRunRoutes(app: ApiApp, ctx: ApiContext): void {
  const { evidence } = ctx;

  async function summarize(runId: string, campaignId: string | null) {
    const rows = await evidence.rows(runId);
    const v = verifyRows(runId, rows);
    let scenario: string | null = null;
    let mode: string | null = null;
    const first = rows[0];
    if (first?.event_type === 'run.started') {
      const payload = rowToEvent(first).payload as Record<string, unknown>;
      scenario = typeof payload.scenario_id === 'string' ? payload.scenario_id : null;
      mode = typeof payload.mode === 'string' ? payload.mode : null;
    }
    const ending = runEnding(rows.map((r) => r.event_type));
    return { ...v, scenario_id: scenario, mode, campaign_id: campaignId, ending };
  }

  app.get(
    '/api/v1/runs',
    {
      config: { permission: 'read' },
      schema: {
        tags: ['evidence'],
        summary: "Evidence runs with their chain verification (a campaign's runs with campaign_id)",
        security: BEARER,
        querystring: Page.extend({ campaign_id: z.uuid().optional() }),
        response: { 200: z.array(RunRow), 404: ErrorBody },
      },
    },
    async (request) => {
      const { limit, offset, campaign_id } = request.query;
      let ids: string[];
      if (campaign_id) {
        const view = await ctx.campaigns.get(campaign_id);
        if (!view) throw notFound(`campaign ${campaign_id}`);
        const result = await ctx.campaigns.result(campaign_id);
        ids = (result?.records ?? []).map((r) => r.evidence.run_id);
      } else {
        ids = await evidence.runIds();
      }
      const page = ids.slice(offset, offset + limit);
      const out = [];
      for (const id of page) out.push(await summarize(id, campaign_id ?? null));
      return out;
    },
  );

  app.get(
    '/api/v1/runs/:run_id/events',
    {
      config: { permission: 'read' },
      schema: {
        tags: ['evidence'],
        summary: "A run's chain events in order (the first is run.started); payloads canary-redacted",
        security: BEARER,
        params: RunParams,
        // The chain's own stored-event model (issue 18: no opaque objects in the document).
        response: { 200: z.array(StoredAuditEvent), 404: ErrorBody },
      },
    },
    async (request) => {
      const events = await evidence.events(request.params.run_id);
      if (events.length === 0) throw notFound(`run ${request.params.run_id}`);
      return redact(events, DEFAULT_CANARY_PATTERNS);
    },
  );

  app.get(
    '/api/v1/runs/:run_id/verify',
    {
      config: { permission: 'read' },
      schema: {
        tags: ['evidence'],
        summary: "Verify a run's hash chain (names the first divergent sequence)",
        security: BEARER,
        params: RunParams,
        response: { 200: Verification, 404: ErrorBody },
      },
    },
    async (request) => {
      const v = await evidence.verify(request.params.run_id);
      if (v.length === 0 && v.valid) throw notFound(`run ${request.params.run_id}`);
      return v;
    },
  );

  app.get(
    '/api/v1/runs/:run_id/replay',
    {
      config: { permission: 'read' },
      schema: {
        tags: ['evidence'],
        summary:
          'The run as steps: model turns, actions with policy decisions, approvals, grants and executions, finding',
        security: BEARER,
        params: RunParams,
        response: {
          200: z.object({
            run_id: z.string(),
            scenario_id: z.string().nullable(),
            mode: z.string().nullable(),
            verification: Verification,
            steps: z.array(
              z.object({
                index: z.number().int(),
                kind: z.string(),
                title: z.string(),
                at: z.string().nullable(),
                sequences: z.array(z.number().int()),
                data: z.record(z.string(), z.unknown()),
                // What a reviewer reads first on run start/end and run-level attacks (verdict and labelled facts).
                summary: z
                  .object({
                    verdict: z.object({ text: z.string(), tone: z.enum(['good', 'bad', 'warn', 'muted']) }).nullable(),
                    facts: z.array(z.tuple([z.string(), z.string()])),
                  })
                  .optional(),
              }),
            ),
          }),
          404: ErrorBody,
        },
      },
    },
    async (request) => {
      const rows = await evidence.rows(request.params.run_id);
      if (rows.length === 0) throw notFound(`run ${request.params.run_id}`);
      return buildReplay(rows.map(rowToEvent), verifyRows(request.params.run_id, rows));
    },
  );
}
