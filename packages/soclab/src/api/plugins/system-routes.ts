import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ScenarioCorpus } from '../../scenarios/loader.js';
import { callerOf } from '../auth.js';

export interface SystemRoutesOptions {
  readonly version: string;
  readonly corpus: ScenarioCorpus;
  readonly storeDialect: 'sqlite' | 'postgres';
}

// A fresh object per route: the OpenAPI hook writes each route's operationId into its schema.
const liveness = () =>
  ({
    config: { permission: 'public', rateLimit: false },
    schema: { tags: ['system'], summary: 'Liveness', response: { 200: z.object({ status: z.literal('ok') }) } },
  }) as const;

/**
 * Liveness (`/health`, `/api/v1/health`: public, never rate limited, so probes work under load) and
 * `/api/v1/version` (any role: what runs here and who the caller is).
 *
 * @example
 *   await app.register(systemRoutes, { version, corpus, storeDialect: 'sqlite' });
 */
export const systemRoutes: FastifyPluginAsyncZod<SystemRoutesOptions> = async (
  app,
  { version, corpus, storeDialect },
) => {
  app.get('/health', liveness(), async () => ({ status: 'ok' as const }));
  app.get('/api/v1/health', liveness(), async () => ({ status: 'ok' as const }));
  app.get(
    '/api/v1/version',
    {
      config: { permission: 'read' },
      schema: {
        tags: ['system'],
        summary: 'Versions of the lab and of what it runs, and who you are',
        security: [{ bearerAuth: [] }],
        response: {
          200: z.object({
            version: z.string(),
            api: z.literal('v1'),
            incident: z.object({ id: z.string(), version: z.string() }),
            scenarios: z.number().int(),
            store: z.enum(['sqlite', 'postgres']),
            you: z.object({ name: z.string(), role: z.string() }),
          }),
        },
      },
    },
    async (request) => ({
      version,
      api: 'v1' as const,
      incident: { id: corpus.incident.id, version: corpus.incident.version },
      scenarios: corpus.all.length,
      store: storeDialect,
      you: { name: callerOf(request).name, role: callerOf(request).role },
    }),
  );
};
