import fastifyStatic from '@fastify/static';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyPluginAsync } from 'fastify';

export interface ConsoleOptions {
  /** Folder of the built console, or null when it is not built (then `/` says so in plain text). */
  readonly webRoot: string | null;
}

/**
 * Files anyone may fetch: the API docs page (`/api/docs`) and the built web console. An encapsulated scope:
 * the plugins' routes cannot declare an access rule themselves, so this scope marks its own routes public, and
 * no other route. The console's files are registered one route each (no wildcard): a path that is not one of
 * them reaches the API's own 404, never the static handler.
 *
 * @example
 *   await app.register(webConsole, { webRoot: findConsoleRoot() }); // findConsoleRoot: ../server.ts
 */
export const webConsole: FastifyPluginAsync<ConsoleOptions> = async (assets, { webRoot }) => {
  assets.addHook('onRoute', (route) => {
    route.config = { ...(route.config ?? {}), permission: route.config?.permission ?? 'public' };
  });
  await assets.register(fastifySwaggerUi, {
    routePrefix: '/api/docs',
    // Swagger UI's own policy, without upgrade-insecure-requests (the server is plain HTTP on loopback).
    staticCSP:
      "default-src 'self'; base-uri 'self'; font-src 'self' data:; frame-ancestors 'none'; img-src 'self' data:; " +
      "object-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'",
    uiConfig: { docExpansion: 'list', deepLinking: false },
  });
  if (webRoot) {
    await assets.register(fastifyStatic, { root: webRoot, prefix: '/', index: 'index.html', wildcard: false });
  } else {
    assets.get('/', { config: { permission: 'public' }, schema: { hide: true } }, async (_request, reply) =>
      reply
        .type('text/plain; charset=utf-8')
        .send('soclab API. The web console is not built (npm run build). API docs: /api/docs\n'),
    );
  }
};
