import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IAnyValue, IKeyValue } from '@opentelemetry/otlp-transformer/build/src/common/internal-types.js';
import type {
  IExportTraceServiceRequest,
  ISpan,
} from '@opentelemetry/otlp-transformer/build/src/trace/internal-types.js';

/** One received span, flattened: attribute values decoded from OTLP's AnyValue form. */
export interface ReceivedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  kind: number;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  status: { code: number; message?: string };
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** Base URL for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** Raw request bodies, to search for secrets in everything that left the process. */
  bodies: string[];
  close(): Promise<void>;
}

function value(v: IAnyValue | undefined): unknown {
  if (!v) return undefined;
  if (v.stringValue !== undefined && v.stringValue !== null) return v.stringValue;
  if (v.boolValue !== undefined && v.boolValue !== null) return v.boolValue;
  if (v.intValue !== undefined && v.intValue !== null) return Number(v.intValue);
  if (v.doubleValue !== undefined && v.doubleValue !== null) return v.doubleValue;
  if (v.arrayValue) return v.arrayValue.values.map(value);
  return undefined;
}

function attributes(list: IKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, value(kv.value)]));
}

/** Ids arrive hex-encoded in OTLP/JSON (the transformer's JSON encoding). */
const id = (v: ISpan['traceId'] | undefined): string =>
  typeof v === 'string' ? v : Buffer.from(v ?? []).toString('hex');

/**
 * A loopback OTLP/HTTP trace receiver (POST /v1/traces, OTLP/JSON as the official exporter sends it), decoding
 * requests into the OTLP transformer's `IExportTraceServiceRequest` shape and answering with an empty
 * ExportTraceServiceResponse.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    if (req.method !== 'POST' || req.url !== '/v1/traces' || !/json/.test(String(req.headers['content-type']))) {
      res.writeHead(415).end();
      return;
    }
    bodies.push(text);
    const request = JSON.parse(text) as IExportTraceServiceRequest;
    for (const rs of request.resourceSpans ?? []) {
      const resource = attributes(rs.resource?.attributes);
      for (const ss of rs.scopeSpans) {
        for (const s of ss.spans ?? []) {
          const parent = s.parentSpanId ? id(s.parentSpanId) : '';
          spans.push({
            name: s.name,
            traceId: id(s.traceId),
            spanId: id(s.spanId),
            parentSpanId: parent || null,
            kind: s.kind,
            attributes: attributes(s.attributes),
            events: (s.events ?? []).map((e) => ({ name: e.name, attributes: attributes(e.attributes) })),
            status: { code: s.status?.code ?? 0, message: s.status?.message },
            resource,
          });
        }
      }
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
