import type { SecretScrubber } from '../secrets/scrubber.js';
import type { RunTracer } from './types.js';

export type { AgentCallTrace, CaseTrace, EvaluatorTrace, RunTrace, RunTracer, TraceIds } from './types.js';

/**
 * Tracing is on when `--otel` is given or an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), and off whenever OTEL_SDK_DISABLED=true. This module imports no
 * OpenTelemetry code: the SDK is loaded only by `loadRunTracer`, so a run without tracing never pays for it.
 */
export function telemetryRequested(flag: boolean | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  if (String(env.OTEL_SDK_DISABLED).toLowerCase() === 'true') return false;
  return Boolean(flag || env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** Load the SDK and build the harness run tracer (OTLP/HTTP export; attributes pass through `scrubber`). */
export async function loadRunTracer(options: {
  scrubber: SecretScrubber;
  /** A further redaction after the scrubber (soclab: canary patterns). */
  redact?: (text: string) => string;
  serviceName?: string;
  serviceVersion?: string;
  endpoint?: string;
}): Promise<RunTracer> {
  const { createRunTracer } = await import('./run-tracer.js');
  return createRunTracer({ serviceName: options.serviceName ?? 'harness', ...options });
}
