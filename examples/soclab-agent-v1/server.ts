/**
 * Reference agent for the soclab.agent.v1 contract: one file, rule-based, no model, no dependencies beyond Node.
 *
 *   npx tsx examples/soclab-agent-v1/server.ts
 *
 * Environment: SOCLAB_HTTP_AGENT_PORT (default 8765; 0 picks a free port), SOCLAB_HTTP_AGENT_HOST (default
 * 127.0.0.1), SOCLAB_HTTP_AGENT_TOKEN (optional; when set, requests must carry `Authorization: Bearer <token>`).
 *
 * Routes: GET /health -> {"status":"ok","contract":"soclab.agent.v1"}; POST /v1/agent -> one reply per stage.
 *
 * The agent reads only structured fields of tool results (outcomes, addresses, verdicts, flags, counts). It never
 * reads free text from tool output, so instructions planted in SIEM events, notes or feeds cannot steer it.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';

export const CONTRACT = 'soclab.agent.v1';
const MAX_REQUEST_BYTES = 5 * 1024 * 1024;

type Json = Record<string, unknown>;
type Reply = Json;

interface Turn {
  role: string;
  content: string;
  trust?: string;
  tool_name?: string | null;
}

interface AgentRequest {
  contract: string;
  run_id: string;
  trace_id: string;
  incident_id: string;
  stage: string;
  context: { alert: Json | null; evidence_ids: string[] };
  tools: Array<{ name: string }>;
  turns: Turn[];
}

interface AuthEvent {
  result?: unknown;
  location?: unknown;
  source_ip?: unknown;
  device_id?: unknown;
  method?: unknown;
}

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

// ------------------------------------------------------------------ reading tool results (structured fields only)

/** Tool results by tool name: the latest `{evidence_id, result}` of each tool turn. */
function toolResults(turns: Turn[]): Map<string, { id: string; result: Json }> {
  const out = new Map<string, { id: string; result: Json }>();
  for (const turn of turns) {
    if (turn.role !== 'tool' || !turn.tool_name) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(turn.content);
    } catch {
      continue;
    }
    if (isObject(parsed) && typeof parsed.evidence_id === 'string' && isObject(parsed.result)) {
      out.set(turn.tool_name, { id: parsed.evidence_id, result: parsed.result });
    }
  }
  return out;
}

function authEvents(results: ReturnType<typeof toolResults>): { id: string; events: AuthEvent[] } | null {
  const hit = results.get('get_authentication_history');
  if (!hit || !Array.isArray(hit.result.events)) return null;
  return { id: hit.id, events: hit.result.events.filter(isObject) as AuthEvent[] };
}

/** The first successful sign-in whose location differs from the first successful one. */
function unfamiliarSuccess(events: AuthEvent[]): AuthEvent | null {
  const successes = events.filter((e) => e.result === 'success');
  const home = successes[0]?.location;
  return successes.find((e) => e.location !== home) ?? null;
}

function failedIps(events: AuthEvent[]): string[] {
  return events
    .filter((e) => e.result === 'failure')
    .map((e) => str(e.source_ip) ?? '')
    .filter(Boolean);
}

function mostCommon(values: string[]): string | null {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: string | null = null;
  let bestCount = 0;
  for (const [v, c] of counts) {
    if (c > bestCount) {
      best = v;
      bestCount = c;
    }
  }
  return best;
}

// ------------------------------------------------------------------ replies

const refusal = (code: string, reason: string): Reply => ({ contract: CONTRACT, refusal: { code, reason } });

function toolCall(req: AgentRequest, name: string, args: Json, rationale: string, confidence?: number): Reply {
  if (req.tools.length > 0 && !req.tools.some((t) => t.name === name)) {
    return refusal('out_of_scope', `the tool this stage needs (${name}) was not offered`);
  }
  const proposal: Json = { tool_calls: [{ name, arguments: args }], rationale, evidence_ids: req.context.evidence_ids };
  if (confidence !== undefined) proposal.confidence = confidence;
  return { contract: CONTRACT, proposal };
}

function formFinding(req: AgentRequest, subject: string): Reply {
  const results = toolResults(req.turns);
  const claims: Array<{ text: string; evidence_ids: string[] }> = [];
  const techniques: string[] = [];
  const auth = authEvents(results);
  let unfamiliar: AuthEvent | null = null;
  if (auth) {
    const failures = failedIps(auth.events);
    if (failures.length >= 3) {
      claims.push({
        text: `${failures.length} failed sign-ins for ${subject}, mostly from ${mostCommon(failures)}`,
        evidence_ids: [auth.id],
      });
      techniques.push('T1110.001');
    }
    unfamiliar = unfamiliarSuccess(auth.events);
    if (unfamiliar) {
      const ip = str(unfamiliar.source_ip);
      const method = str(unfamiliar.method) ?? '';
      if (/mfa/i.test(method) && ip && failures.includes(ip)) {
        claims.push({
          text: `MFA (${method}) was approved for the sign-in from ${ip} after failed password attempts from the same address`,
          evidence_ids: [auth.id],
        });
        techniques.push('T1621');
      }
      claims.push({
        text: `Successful sign-in for ${subject} from ${str(unfamiliar.location) ?? 'an unfamiliar location'} (${ip ?? 'unknown address'}) on device ${str(unfamiliar.device_id) ?? 'unknown'}`,
        evidence_ids: [auth.id],
      });
      techniques.push('T1078');
    }
  }
  const indicator = results.get('lookup_indicator');
  if (indicator && indicator.result.verdict === 'malicious') {
    const conf = typeof indicator.result.confidence === 'number' ? ` (confidence ${indicator.result.confidence})` : '';
    claims.push({
      text: `${str(indicator.result.indicator) ?? 'The indicator'} is rated malicious by threat intelligence${conf}`,
      evidence_ids: [indicator.id],
    });
  }
  const endpoint = results.get('get_endpoint_status');
  if (endpoint) {
    const alerts = Array.isArray(endpoint.result.edr_alerts)
      ? endpoint.result.edr_alerts.filter((a): a is string => typeof a === 'string')
      : [];
    const unmanaged = endpoint.result.managed === false;
    if (unmanaged || alerts.length > 0) {
      const parts = [
        unmanaged ? 'is not managed by the organisation' : null,
        alerts.length ? `has EDR alerts: ${alerts.join(', ')}` : null,
      ];
      claims.push({
        text: `Endpoint ${str(endpoint.result.endpoint_id) ?? 'used in the sign-in'} ${parts.filter(Boolean).join(' and ')}`,
        evidence_ids: [endpoint.id],
      });
      if (alerts.includes('suspicious_child_process')) techniques.push('T1059.001');
    }
  }
  const siem = results.get('search_siem_events');
  if (siem && typeof siem.result.count === 'number') {
    // Only the count: SIEM message text is attacker-reachable and is never read.
    claims.push({ text: `SIEM holds ${siem.result.count} events about ${subject}`, evidence_ids: [siem.id] });
  }
  if (claims.length === 0) return refusal('insufficient_evidence', 'no structured tool results to base a finding on');
  const summary = techniques.length
    ? `Likely account compromise of ${subject} (${techniques.join(', ')})`
    : `Suspicious activity for ${subject}; no compromise technique established`;
  return {
    contract: CONTRACT,
    proposal: {
      finding: { summary, claims, techniques },
      rationale: 'Claims are built only from structured fields of tool results, each citing its evidence id.',
      confidence: Math.min(0.95, Math.round((0.5 + 0.1 * claims.length) * 100) / 100),
      evidence_ids: [...new Set(claims.flatMap((c) => c.evidence_ids))],
    },
  };
}

/** The rules, one per stage. */
export function decide(req: AgentRequest): Reply {
  const alert = req.context.alert;
  const subject = isObject(alert) ? str(alert.subject_user_id) : null;
  if (!subject) return refusal('insufficient_evidence', 'the alert names no subject_user_id');
  const results = toolResults(req.turns);
  switch (req.stage) {
    case 'collect_identity':
      return toolCall(req, 'get_identity_profile', { user_id: subject }, 'Profile the user named in the alert.');
    case 'collect_authentication':
      return toolCall(
        req,
        'get_authentication_history',
        { user_id: subject },
        'Review recent sign-ins of the subject.',
      );
    case 'collect_endpoint': {
      const auth = authEvents(results);
      const device = auth ? str(unfamiliarSuccess(auth.events)?.device_id) : null;
      if (!device)
        return refusal('insufficient_evidence', 'no successful sign-in from an unfamiliar location with a device');
      return toolCall(
        req,
        'get_endpoint_status',
        { endpoint_id: device },
        'Check the device of the unfamiliar sign-in.',
      );
    }
    case 'enrich_indicators': {
      const auth = authEvents(results);
      const ip = auth ? (mostCommon(failedIps(auth.events)) ?? str(unfamiliarSuccess(auth.events)?.source_ip)) : null;
      if (!ip) return refusal('insufficient_evidence', 'no source address to enrich');
      return toolCall(req, 'lookup_indicator', { indicator: ip }, 'Look up the address behind the failed sign-ins.');
    }
    case 'collect_siem':
      return toolCall(req, 'search_siem_events', { query: subject }, 'Search SIEM for every event about the subject.');
    case 'form_finding':
      return formFinding(req, subject);
    case 'propose_action':
      return toolCall(
        req,
        'revoke_sessions',
        { user_id: subject },
        'Revoking sessions stops the attacker and is reversible; no wider action is warranted by the evidence.',
        0.8,
      );
    default:
      return refusal('unsupported_stage', 'this agent has no rule for the stage');
  }
}

// ------------------------------------------------------------------ HTTP

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time bearer check (hashing first makes the lengths equal). */
function authorized(header: string | undefined, token: string | undefined): boolean {
  if (!token) return true;
  const presented = header?.startsWith('Bearer ') ? header.slice(7) : '';
  return timingSafeEqual(digest(presented), digest(token));
}

function send(res: ServerResponse, status: number, body: Json): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_REQUEST_BYTES) {
        resolve(null);
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function validRequest(body: unknown): body is AgentRequest {
  if (!isObject(body) || body.contract !== CONTRACT || typeof body.stage !== 'string') return false;
  const ctx = body.context;
  return (
    isObject(ctx) &&
    Array.isArray(ctx.evidence_ids) &&
    (ctx.alert === null || isObject(ctx.alert)) &&
    Array.isArray(body.tools) &&
    Array.isArray(body.turns)
  );
}

export interface ReferenceAgentOptions {
  token?: string;
}

/** The agent as a Node HTTP server (not yet listening). */
export function createReferenceAgent(options: ReferenceAgentOptions = {}): Server {
  const token = options.token || undefined;
  return createServer(async (req, res) => {
    try {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'GET' && path === '/health') return send(res, 200, { status: 'ok', contract: CONTRACT });
      if (path !== '/v1/agent') return send(res, 404, { error: 'not found' });
      if (req.method !== 'POST') return send(res, 405, { error: 'use POST' });
      if (!authorized(req.headers.authorization, token)) return send(res, 401, { error: 'unauthorized' });
      const text = await readBody(req);
      if (text === null) return send(res, 413, { error: 'request too large' });
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return send(res, 400, { error: 'request is not JSON' });
      }
      if (!validRequest(body)) return send(res, 400, { error: `expected a ${CONTRACT} request` });
      return send(res, 200, decide(body));
    } catch {
      if (!res.headersSent) send(res, 500, { error: 'internal error' });
    }
  });
}

async function main(): Promise<void> {
  const port = Number(process.env.SOCLAB_HTTP_AGENT_PORT ?? 8765);
  const host = process.env.SOCLAB_HTTP_AGENT_HOST || '127.0.0.1';
  const server = createReferenceAgent({ token: process.env.SOCLAB_HTTP_AGENT_TOKEN });
  server.listen(port, host, () => {
    const address = server.address();
    const actual = typeof address === 'object' && address ? address.port : port;
    process.stdout.write(`soclab reference agent listening on http://${host}:${actual}/v1/agent\n`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  void main();
}
