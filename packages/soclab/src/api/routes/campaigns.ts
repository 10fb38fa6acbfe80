import { z } from 'zod';
import { RunRecord, scoredRun } from '../../campaign/record.js';
import type { CampaignRun } from '../../campaign/run.js';
import { DEFAULT_CANARY_PATTERNS, redact } from '../../control/redaction.js';
import { PdfSupportError, renderPdf } from '../../reports/pdf.js';
import { renderHtml } from '../../reports/render.js';
import { buildScorecard, Scorecard, type ScorecardOptions, scorecardJson } from '../../reports/scorecard.js';
import { comparePaired } from '../../scoring/paired.js';
import { ProfileMismatchError } from '../../scoring/profile.js';
import { Assessment } from '../../scoring/result.js';
import { callerOf } from '../auth.js';
import {
  CampaignQueueFullError,
  CampaignRequestError,
  CampaignStateError,
  type StoredCampaignRun,
} from '../campaigns.js';
import { type ApiApp, type ApiContext, BEARER } from '../context.js';
import { ApiError, busy, notFound } from '../errors.js';
import { RenderPoolFullError } from '../render-pool.js';
import {
  CampaignCreate,
  CampaignStatusEnum,
  CampaignView,
  ErrorBody,
  IdParams,
  Page,
  ReportParams,
  ReportQuery,
} from '../schemas.js';

const REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'";

const asRun = (stored: StoredCampaignRun): CampaignRun => ({ ...stored, scorecard: null }) as unknown as CampaignRun;

/**
 * A finished campaign's facts (`CampaignInfo` without the server-side run folder): the fields every campaign has
 * are described; fields added later pass through (loose) rather than being dropped by the serializer.
 */
const CampaignInfoView = z
  .looseObject({
    campaign_id: z.string(),
    label: z.string(),
    mode: z.enum(['baseline', 'protected']),
    ablated: z.string().nullable(),
    provider: z.string(),
    model: z.string(),
    authority_level: z.string(),
    approver: z.string(),
    repeats: z.number().int(),
    scenarios_requested: z.array(z.string()).nullable(),
    policy_version: z.string(),
    fixture: z.object({ name: z.string(), version: z.string(), sha256: z.string() }),
    prompt_version: z.string(),
    incident: z.object({ id: z.string(), version: z.string(), title: z.string() }),
    started_at: z.string(),
    finished_at: z.string().nullable(),
    state: z.string(),
    skipped: z.array(z.object({ scenario_id: z.string(), reason: z.string() })),
    errors: z.array(z.object({ scenario_id: z.string(), repeat: z.number().int(), error: z.string() })),
  })
  .meta({ id: 'CampaignInfo' });

/** Campaigns: start (202 + Location), list (the comparison table), get (progress, results) and reports. */
export function registerCampaignRoutes(app: ApiApp, ctx: ApiContext): void {
  app.post(
    '/api/v1/campaigns',
    {
      config: { permission: 'run' },
      schema: {
        tags: ['campaigns'],
        summary: 'Start a campaign in the background',
        description:
          'Checks the provider, scenarios and approver before anything runs (400 naming the field), stores the ' +
          'campaign as queued and answers 202 with its id and a Location to poll.',
        security: BEARER,
        body: CampaignCreate,
        response: {
          202: CampaignView.extend({ location: z.string() }),
          400: ErrorBody,
          422: ErrorBody,
          429: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      try {
        const view = await ctx.campaigns.create(request.body, callerOf(request).name);
        const location = `/api/v1/campaigns/${view.campaign_id}`;
        return reply
          .code(202)
          .header('location', location)
          .send(redact({ ...view, location }, DEFAULT_CANARY_PATTERNS));
      } catch (error) {
        if (error instanceof CampaignQueueFullError) {
          throw busy('queue_full', error.message, ctx.config.retry_after_seconds);
        }
        if (error instanceof CampaignRequestError) {
          throw new ApiError(400, 'invalid_campaign', `body.${error.field}: ${error.message}`, [
            { path: `body.${error.field}`, message: error.message },
          ]);
        }
        throw error;
      }
    },
  );

  app.get(
    '/api/v1/campaigns',
    {
      config: { permission: 'read' },
      schema: {
        tags: ['campaigns'],
        summary: 'Campaigns, newest first, with their comparison rows',
        security: BEARER,
        querystring: Page.extend({ status: CampaignStatusEnum.optional() }),
        response: { 200: z.array(CampaignView) },
      },
    },
    // Views carry the caller's free text (request.note, model): canary-redacted like every campaign view.
    async (request) => redact(await ctx.campaigns.list(request.query), DEFAULT_CANARY_PATTERNS),
  );

  app.get(
    '/api/v1/campaigns/:id',
    {
      config: { permission: 'read' },
      schema: {
        tags: ['campaigns'],
        summary: 'One campaign: status, progress and, once completed, its assessment and per-run outcomes',
        security: BEARER,
        params: IdParams,
        response: {
          200: CampaignView.extend({
            assessment: Assessment.nullable(),
            runs: z.array(RunRecord),
            info: CampaignInfoView.nullable(),
          }),
          404: ErrorBody,
        },
      },
    },
    async (request) => {
      const view = await ctx.campaigns.get(request.params.id);
      if (!view) throw notFound(`campaign ${request.params.id}`);
      const result = view.status === 'completed' ? await ctx.campaigns.result(request.params.id) : null;
      // The run folder is a server-side path: never sent.
      const info = result ? (({ run_dir: _dir, ...rest }) => rest)(result.info) : null;
      return redact(
        {
          ...view,
          info,
          assessment: result?.assessment ?? null,
          runs: [...(result?.records ?? [])],
        },
        DEFAULT_CANARY_PATTERNS,
      );
    },
  );

  app.delete(
    '/api/v1/campaigns/:id',
    {
      config: { permission: 'run' },
      schema: {
        tags: ['campaigns'],
        summary: 'Cancel a queued or running campaign (its evidence is kept)',
        description:
          'A queued campaign never starts; a running one is stopped: its runs end, the chains they wrote are kept ' +
          'and closed with run.interrupted, and pending approvals are cancelled. 409 once it has finished.',
        security: BEARER,
        params: IdParams,
        response: { 200: CampaignView, 404: ErrorBody, 409: ErrorBody },
      },
    },
    async (request) => {
      try {
        return redact(await ctx.campaigns.cancel(request.params.id, callerOf(request).name), DEFAULT_CANARY_PATTERNS);
      } catch (error) {
        if (error instanceof CampaignStateError) {
          if (error.status === null) throw notFound(`campaign ${request.params.id}`);
          throw new ApiError(409, 'already_finished', error.message);
        }
        throw error;
      }
    },
  );

  /** The scorecard of a completed campaign, optionally paired with a baseline campaign (the control change). */
  async function scorecardFor(id: string, baselineId: string | undefined): Promise<Scorecard> {
    const view = await ctx.campaigns.get(id);
    if (!view) throw notFound(`campaign ${id}`);
    const stored = await ctx.campaigns.result(id);
    if (!stored)
      throw new ApiError(409, 'not_completed', `campaign ${id} is ${view.status}; reports exist once it completes`);
    const run = asRun(stored);
    let baseline: ScorecardOptions['baseline'];
    if (baselineId) {
      const storedBaseline = await ctx.campaigns.result(baselineId);
      if (!storedBaseline) throw notFound(`completed baseline campaign ${baselineId}`);
      const b = asRun(storedBaseline);
      baseline = {
        run: b,
        runFolder: `campaigns/${baselineId}`,
        paired: comparePaired(b.records.map(scoredRun), run.records.map(scoredRun), {
          baseline: b.assessment.composite,
          protected: run.assessment.composite,
        }),
      };
    }
    try {
      return reverified(buildScorecard(run, { runFolder: `campaigns/${id}`, baseline, version: ctx.version }));
    } catch (error) {
      // A baseline stored under another scoring profile (e.g. before an upgrade) is not comparable.
      if (error instanceof ProfileMismatchError) throw new ApiError(409, 'profile_mismatch', error.message);
      throw error;
    }
  }

  /**
   * The stored verification dates from the end of each run; a served report checks every chain again against the
   * evidence store now, so a row edited since shows as a failure (a chain whose root hash moved, as when events
   * were removed from its end, too).
   */
  async function reverified(scorecard: Scorecard): Promise<Scorecard> {
    const runs: Scorecard['chains']['runs'] = [];
    for (const recorded of scorecard.chains.runs) {
      const now = await ctx.evidence.verify(recorded.run_id);
      const moved = now.valid && now.root_hash !== recorded.root_hash;
      runs.push({
        ...recorded,
        valid: now.valid && !moved,
        length: now.length,
        root_hash: now.root_hash,
        first_invalid_sequence: now.first_invalid_sequence,
        reason: moved
          ? `the chain now ends at ${now.root_hash ?? 'nothing'} (${now.length} events), not at the root hash recorded when the run ended (${recorded.length} events)`
          : now.reason,
      });
    }
    return {
      ...scorecard,
      chains: {
        all_valid: runs.every((r) => r.valid),
        runs,
        verification: { how: 'reverified', at: new Date().toISOString() },
      },
    };
  }

  app.get(
    '/api/v1/campaigns/:id/reports/:audience',
    {
      config: { permission: 'read' },
      schema: {
        tags: ['reports'],
        summary: 'Executive or technical HTML report (optionally against a baseline campaign)',
        security: BEARER,
        params: ReportParams,
        querystring: ReportQuery,
        produces: ['text/html'],
        response: { 200: z.string().describe('text/html'), 404: ErrorBody, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      const scorecard = await scorecardFor(request.params.id, request.query.baseline);
      return reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', REPORT_CSP)
        .send(renderHtml(scorecard, request.params.audience));
    },
  );

  app.get(
    '/api/v1/campaigns/:id/reports/:audience/json',
    {
      config: { permission: 'read' },
      schema: {
        tags: ['reports'],
        summary: 'The versioned JSON scorecard every report is rendered from',
        security: BEARER,
        params: ReportParams,
        querystring: ReportQuery,
        // The body is serialized once by scorecardJson (canonical key order); the schema is what it holds.
        response: { 200: Scorecard, 404: ErrorBody, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      const scorecard = await scorecardFor(request.params.id, request.query.baseline);
      // A string body is sent as is (no second serialization); the declared schema says what it holds.
      return reply.type('application/json; charset=utf-8').send(scorecardJson(scorecard) as unknown as Scorecard);
    },
  );

  app.get(
    '/api/v1/campaigns/:id/reports/executive/pdf',
    {
      config: { permission: 'read' },
      schema: {
        tags: ['reports'],
        summary: 'One-page executive PDF (needs Chromium on the server; 501 naming the package otherwise)',
        security: BEARER,
        params: IdParams,
        querystring: ReportQuery,
        produces: ['application/pdf'],
        response: {
          200: z.string().describe('application/pdf'),
          404: ErrorBody,
          409: ErrorBody,
          429: ErrorBody,
          501: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      const scorecard = await scorecardFor(request.params.id, request.query.baseline);
      let pdf: Buffer;
      try {
        const env = ctx.config.chromium_path ? { ...ctx.env, CHROMIUM_PATH: ctx.config.chromium_path } : ctx.env;
        pdf = await ctx.pdfPool.run(callerOf(request).key, () => renderPdf(scorecard, { env }));
      } catch (error) {
        if (error instanceof RenderPoolFullError) {
          throw busy('pdf_busy', error.message, ctx.config.retry_after_seconds);
        }
        if (error instanceof PdfSupportError) {
          const hint = /apt-get/.test(error.message)
            ? ''
            : '; install the Debian package `chromium` (apt-get install chromium) or set CHROMIUM_PATH to a Chromium binary';
          throw new ApiError(501, 'pdf_unavailable', `PDF reports need Chromium: ${error.message}${hint}`);
        }
        throw error;
      }
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="executive-${request.params.id}.pdf"`)
        .send(pdf as unknown as string);
    },
  );
}
