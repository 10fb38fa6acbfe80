import type { SecretScrubber } from '@aeh/harness';
import type { RunTracer } from '@aeh/harness/telemetry';
import type { Tracing } from '@aeh/harness/telemetry/otel';

/**
 * The process's OpenTelemetry session for `soclab campaign`, `compare`, `demo` and `serve`: started once by the
 * CLI when `--otel` or OTEL_EXPORTER_OTLP_ENDPOINT asks for it, then used by every campaign the process runs
 * (CLI or API). Without it nothing here loads the SDK: `startSoclabTelemetry` imports it on demand.
 */
export interface SoclabTelemetry {
  /** The harness run tracer: campaign > case (scenario x repeat) > agent call > evaluators. */
  tracer: RunTracer;
  /** Soclab's own spans under each agent call: scenario > stage > model turn > tool > decision/approval/execution. */
  tracing: Tracing;
  shutdown(): Promise<void>;
}

let active: SoclabTelemetry | null = null;

/** The session started by `startSoclabTelemetry`, if tracing is on. */
export function soclabTelemetry(): SoclabTelemetry | null {
  return active;
}

/** Start tracing when asked for (flag or OTLP environment); returns null, loading nothing, otherwise. */
export async function startSoclabTelemetry(flag: boolean | undefined): Promise<SoclabTelemetry | null> {
  const { telemetryRequested, loadRunTracer } = await import('@aeh/harness/telemetry');
  if (!telemetryRequested(flag)) return null;
  if (active) return active;
  const [{ SecretScrubber: Scrubber }, { createTracing }, { DEFAULT_CANARY_PATTERNS, redactText }] = await Promise.all([
    import('@aeh/harness'),
    import('@aeh/harness/telemetry/otel'),
    import('../control/redaction.js'),
  ]);
  const scrubber: SecretScrubber = new Scrubber();
  // Canaries are redacted in every attribute, whatever span they would reach.
  const redact = (text: string) => redactText(text, DEFAULT_CANARY_PATTERNS);
  const tracer = await loadRunTracer({ scrubber, serviceName: 'soclab', redact });
  const tracing = createTracing({ serviceName: 'soclab', scrubber, redact });
  const session: SoclabTelemetry = {
    tracer,
    tracing,
    async shutdown() {
      active = null;
      await Promise.all([tracer.shutdown(), tracing.shutdown()]);
    },
  };
  active = session;
  return session;
}
