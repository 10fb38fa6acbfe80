import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ApprovalInbox } from '../control/approval-inbox.js';
import type { SqlEvidenceStore } from '../evidence/store.js';
import type { ScenarioCorpus } from '../scenarios/loader.js';
import type { Permission, Principal } from './auth.js';
import type { CampaignService } from './campaigns.js';
import type { ServerConfig } from './config.js';
import type { RenderPool } from './render-pool.js';
import type { ApiStore } from './store.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the caller's role must allow; `public` needs no token. None declared: admin only (deny by default). */
    permission?: Permission | 'public';
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** The Fastify instance with the zod type provider (request types inferred from the route schemas). */
export type ApiApp = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  ZodTypeProvider
>;

/** Everything the routes share. */
export interface ApiContext {
  readonly config: ServerConfig;
  readonly evidence: SqlEvidenceStore;
  readonly store: ApiStore;
  readonly inbox: ApprovalInbox;
  readonly campaigns: CampaignService;
  readonly corpus: ScenarioCorpus;
  readonly env: NodeJS.ProcessEnv;
  readonly version: string;
  /** PDF renders: bounded, with a per-token share. */
  readonly pdfPool: RenderPool;
  /** Resolves when every approvals-inbox write queued so far is in the database. */
  approvalWrites(): Promise<void>;
}

/** OpenAPI security requirement of the authenticated routes. */
export const BEARER = [{ bearerAuth: [] }];
