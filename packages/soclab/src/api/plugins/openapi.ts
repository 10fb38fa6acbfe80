import fastifySwagger from '@fastify/swagger';
import type { RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { describeRoute, finishDocument } from '../openapi-routes.js';

export interface OpenApiOptions {
  /** The lab's version, shown as the document's `info.version`. */
  readonly version: string;
}

/**
 * The OpenAPI document of every route registered after this plugin, generated from the routes' zod schemas and
 * served at `/api/openapi.json` (public, not rate limited). Each route's entry gets its operationId and every
 * status the shared hooks can answer (issue 18). The docs page that reads it is in `console.ts`.
 *
 * @example
 *   await app.register(openApi, { version: soclabVersion() });
 */
export const openApi = fp<OpenApiOptions>(
  async (app, { version }) => {
    app.addHook('onRoute', (route) => describeRoute(route as unknown as RouteOptions));
    await app.register(fastifySwagger, {
      openapi: {
        openapi: '3.0.3',
        info: {
          title: 'soclab API',
          version,
          description:
            'Assurance lab for AI SOC agents: start campaigns, decide escalated actions, replay and verify evidence. ' +
            'Every /api/v1 route needs `Authorization: Bearer <token>`; roles: viewer (read), operator (read, start ' +
            'campaigns), approver (read, decide approvals), admin (all).',
        },
        components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
        tags: [
          { name: 'system' },
          { name: 'catalog' },
          { name: 'campaigns' },
          { name: 'reports' },
          { name: 'approvals' },
          { name: 'evidence' },
        ],
      },
      transform: jsonSchemaTransform,
      // Named zod schemas (the shared `Error`) become components; then servers and non-JSON routes' error bodies.
      transformObject: (document) => finishDocument(jsonSchemaTransformObject(document) as Record<string, unknown>),
    });
    app.get(
      '/api/openapi.json',
      { config: { permission: 'public', rateLimit: false }, schema: { hide: true } },
      async () => app.swagger(),
    );
  },
  { name: 'soclab-openapi' },
);
