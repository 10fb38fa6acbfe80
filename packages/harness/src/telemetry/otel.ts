import { type Attributes, type Context, context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  ATTR_ERROR_TYPE,
  ATTR_EXCEPTION_MESSAGE,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
} from '@opentelemetry/semantic-conventions';
import { redactUrl, type SecretScrubber } from '../secrets/scrubber.js';
import type { TraceIds } from './types.js';

/**
 * The one place that talks to the OpenTelemetry SDK: a tracer provider with a batching OTLP/HTTP exporter, and
 * spans whose every string attribute goes through the run's secret scrubber first (secrets and canaries never
 * leave the process in a span). The harness runner (./run-tracer.ts) and soclab build their spans on this.
 * Loaded only by `import()` when tracing was asked for.
 */
export interface TracingOptions {
  /** `service.name` unless OTEL_SERVICE_NAME is set. */
  serviceName: string;
  serviceVersion?: string;
  scrubber: SecretScrubber;
  /** A further redaction after the scrubber (soclab: its canary patterns). */
  redact?: (text: string) => string;
  /** OTLP/HTTP base endpoint (default: OTEL_EXPORTER_OTLP_ENDPOINT, else http://localhost:4318). */
  endpoint?: string;
  env?: NodeJS.ProcessEnv;
}

export type AttributeValue = string | number | boolean | string[] | number[] | null | undefined;

/** A started span with the harness's scrubbing and W3C helpers. */
export interface TracedSpan {
  readonly span: Span;
  readonly ids: TraceIds;
  /** `00-<trace>-<span>-<flags>`: the W3C trace context header value for a downstream request. */
  readonly traceparent: string;
  set(attributes: Record<string, AttributeValue>): void;
  event(name: string, attributes: Record<string, AttributeValue>): void;
  /** Mark the span failed: `error.type` and an error status, with the (scrubbed) message. */
  fail(errorType: string, message?: string | null): void;
  end(endTime?: number): void;
}

export interface StartOptions {
  /** A span of this process, or a W3C traceparent received from elsewhere (e.g. the harness's agent call). */
  parent?: TracedSpan | string | null;
  kind?: 'internal' | 'client' | 'server';
  /** Epoch milliseconds (for spans recorded after the fact, e.g. an agent's reported tool calls). */
  startTime?: number;
}

export interface Tracing {
  start(name: string, attributes: Record<string, AttributeValue>, options?: StartOptions): TracedSpan;
  shutdown(): Promise<void>;
}

const KINDS = { internal: SpanKind.INTERNAL, client: SpanKind.CLIENT, server: SpanKind.SERVER } as const;
/** How long the end of a run waits for the last spans to be accepted. */
const SHUTDOWN_MS = 5_000;
/** Longest string attribute value kept; back-ends truncate anyway, and long values are mostly model text. */
const MAX_VALUE = 1_000;

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A context whose parent is the span named by a W3C traceparent (a malformed value starts a new trace). */
function remoteParent(traceparent: string): Context {
  const m = TRACEPARENT.exec(traceparent.trim());
  if (!m) return context.active();
  return trace.setSpanContext(context.active(), {
    traceId: m[1] as string,
    spanId: m[2] as string,
    traceFlags: Number.parseInt(m[3] as string, 16),
    isRemote: true,
  });
}

/** The OTLP/HTTP traces URL: an explicit endpoint, else the standard environment variables, else localhost. */
export function tracesUrl(endpoint: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const signal = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (!endpoint && signal) return signal;
  const base = endpoint || env.OTEL_EXPORTER_OTLP_ENDPOINT || 'http://localhost:4318';
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

export function createTracing(options: TracingOptions): Tracing {
  const env = options.env ?? process.env;
  const scrub = (value: AttributeValue): AttributeValue => {
    if (typeof value === 'string') {
      const redact = options.redact ?? ((t: string) => t);
      const clean = redact(options.scrubber.text(value));
      return clean.length > MAX_VALUE ? `${clean.slice(0, MAX_VALUE)}…` : clean;
    }
    if (Array.isArray(value) && value.every((v) => typeof v === 'string'))
      return (value as string[]).map((v) => scrub(v) as string);
    return value;
  };
  const clean = (attributes: Record<string, AttributeValue>): Attributes => {
    const out: Attributes = {};
    for (const [k, v] of Object.entries(attributes)) {
      const s = scrub(v);
      if (s !== null && s !== undefined) out[k] = s;
    }
    return out;
  };
  const url = tracesUrl(options.endpoint, env);
  const exporter = new OTLPTraceExporter({ url });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME || options.serviceName,
      ...(options.serviceVersion ? { [ATTR_SERVICE_VERSION]: options.serviceVersion } : {}),
    }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer(options.serviceName, options.serviceVersion);

  const wrap = (span: Span): TracedSpan => {
    const sc = span.spanContext();
    const ids = { trace_id: sc.traceId, span_id: sc.spanId };
    return {
      span,
      ids,
      traceparent: `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 1).toString(16).padStart(2, '0')}`,
      set: (attributes) => span.setAttributes(clean(attributes)),
      event: (name, attributes) => span.addEvent(name, clean(attributes)),
      fail(errorType, message) {
        span.setAttributes(clean({ [ATTR_ERROR_TYPE]: errorType }));
        const text = message ? (scrub(message) as string) : undefined;
        if (text) span.addEvent('exception', clean({ [ATTR_EXCEPTION_MESSAGE]: text }));
        span.setStatus({ code: SpanStatusCode.ERROR, message: text });
      },
      end: (endTime) => span.end(endTime),
    };
  };

  return {
    start(name, attributes, o = {}) {
      const parent: Context =
        typeof o.parent === 'string'
          ? remoteParent(o.parent)
          : o.parent
            ? trace.setSpan(context.active(), o.parent.span)
            : context.active();
      const span = tracer.startSpan(
        scrub(name) as string,
        { kind: KINDS[o.kind ?? 'internal'], attributes: clean(attributes), startTime: o.startTime },
        parent,
      );
      return wrap(span);
    },
    async shutdown() {
      // The exporter retries with backoff; an unreachable collector must not hold the CLI for long.
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no OTLP collector answered within ${SHUTDOWN_MS / 1000} s at ${redactUrl(url)}`)),
          SHUTDOWN_MS,
        );
        timer.unref();
      });
      try {
        await Promise.race([provider.forceFlush().then(() => provider.shutdown()), limit]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
