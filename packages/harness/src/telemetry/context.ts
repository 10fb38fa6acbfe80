import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The W3C `traceparent` of the agent call in progress, for code that sends requests on the agent's behalf
 * without a RunContext in reach (soclab's http provider, deep inside a scenario run). Holds a string only: no
 * OpenTelemetry code is loaded for it, and it is empty unless tracing is on.
 */
const current = new AsyncLocalStorage<string>();

/** Run `fn` with `traceparent` as the current trace context (no-op wrapper when it is undefined). */
export function withTraceparent<T>(traceparent: string | undefined, fn: () => T): T {
  return traceparent ? current.run(traceparent, fn) : fn();
}

/** The traceparent set by the nearest `withTraceparent`, if any. */
export function currentTraceparent(): string | undefined {
  return current.getStore();
}
