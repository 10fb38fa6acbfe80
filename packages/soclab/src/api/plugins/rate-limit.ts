import fastifyRateLimit from '@fastify/rate-limit';
import fp from 'fastify-plugin';
import { errorBody } from '../errors.js';
import type { PrincipalLookup } from './access-control.js';

export interface RateLimitOptions {
  readonly max: number;
  readonly windowMs: number;
  readonly principalOf: PrincipalLookup;
}

/**
 * Per-caller request limits on every route (routes opt out with `config.rateLimit: false`). The key is the token
 * when it is valid, else the socket address (forwarding headers are never trusted), so one token cannot spend
 * another's budget and unauthenticated floods are limited too.
 *
 * @example
 *   await app.register(rateLimit, { max: 300, windowMs: 60_000, principalOf });
 */
export const rateLimit = fp<RateLimitOptions>(
  async (app, { max, windowMs, principalOf }) => {
    await app.register(fastifyRateLimit, {
      global: true,
      max,
      timeWindow: windowMs,
      keyGenerator: (request) => principalOf(request)?.key ?? `ip:${request.ip}`,
      errorResponseBuilder: (_request, context) => ({
        ...errorBody(429, 'rate_limited', `too many requests: at most ${context.max} per ${context.after}`),
        statusCode: 429,
      }),
    });
  },
  { name: 'soclab-rate-limit' },
);
