import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { DEFAULT_CANARY_PATTERNS, redactText } from '../control/redaction.js';
import type { ErrorBody } from './schemas.js';

/** An error with an HTTP status and a stable code; the message is shown to the caller. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly issues?: { path: string; message: string }[],
    /** Response headers that belong to the error (Retry-After on 429). */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
  }
}

/** 429 with Retry-After: a bounded resource (campaign queue, PDF renderers) is full. */
export const busy = (code: string, message: string, retryAfterSeconds: number): ApiError =>
  new ApiError(429, code, message, undefined, { 'retry-after': String(retryAfterSeconds) });

export const notFound = (what: string): ApiError => new ApiError(404, 'not_found', `${what} not found`);

export function errorBody(
  statusCode: number,
  code: string,
  message: string,
  issues?: { path: string; message: string }[],
): ErrorBody {
  const body: ErrorBody = {
    statusCode,
    code,
    error: STATUS_CODES[statusCode] ?? 'Error',
    message: redactText(message, DEFAULT_CANARY_PATTERNS),
  };
  if (issues && issues.length > 0) body.issues = issues;
  return body;
}

const FASTIFY_CODES: Readonly<Record<string, [number, string]>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'invalid_json'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'invalid_json'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'body_too_large'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported_media_type'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'invalid_content_length'],
};

/**
 * One error format for every failure: validation problems are 422 with each field path (`body.repeats`,
 * `params.id`), malformed JSON 400, oversized bodies 413, rate limiting 429, and anything unexpected a 500 that
 * says nothing about the internals.
 */
export function handleError(
  error: FastifyError | ApiError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (error instanceof ApiError) {
    if (error.headers) reply.headers(error.headers);
    return reply.code(error.statusCode).send(errorBody(error.statusCode, error.code, error.message, error.issues));
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const where = (error as FastifyError).validationContext ?? 'body';
    const issues = error.validation.map((v) => {
      const path = [
        where,
        ...String(v.instancePath ?? '')
          .split('/')
          .filter(Boolean),
      ].join('.');
      return { path, message: v.message ?? 'invalid' };
    });
    const first = issues[0];
    return reply
      .code(422)
      .send(
        errorBody(422, 'validation_failed', first ? `${first.path}: ${first.message}` : `invalid ${where}`, issues),
      );
  }
  const fe = error as FastifyError;
  const known = fe.code ? FASTIFY_CODES[fe.code] : undefined;
  if (known) return reply.code(known[0]).send(errorBody(known[0], known[1], fe.message));
  if (fe.statusCode === 429) {
    return reply.code(429).send(errorBody(429, 'rate_limited', fe.message || 'too many requests'));
  }
  if (isResponseSerializationError(error)) {
    request.log.error({ url: request.url }, 'response did not match its schema');
    return reply.code(500).send(errorBody(500, 'internal_error', 'internal error (response shape)'));
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return reply.code(fe.statusCode).send(errorBody(fe.statusCode, 'bad_request', fe.message));
  }
  request.log.error({ err: redactText(String(error.stack ?? error), DEFAULT_CANARY_PATTERNS) }, 'request failed');
  return reply.code(500).send(errorBody(500, 'internal_error', 'internal error'));
}
