import fastifyHelmet from '@fastify/helmet';
import fp from 'fastify-plugin';
import { isLoopback } from '../config.js';

/** The console's policy: only this server's own files, inline styles allowed, never framed. */
const CONSOLE_CSP = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  fontSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
};

export interface SecurityHeadersOptions {
  /** The address the server binds: HSTS is left out on loopback (plain HTTP there). */
  readonly host: string;
}

/**
 * Security headers on every answer: the console's Content-Security-Policy, no framing, no sniffing.
 *
 * @example
 *   await app.register(securityHeaders, { host: '127.0.0.1' });
 */
export const securityHeaders = fp<SecurityHeadersOptions>(
  async (app, { host }) => {
    await app.register(fastifyHelmet, {
      contentSecurityPolicy: { useDefaults: false, directives: CONSOLE_CSP },
      crossOriginEmbedderPolicy: false,
      hsts: isLoopback(host) ? false : undefined,
    });
  },
  { name: 'soclab-security-headers' },
);
