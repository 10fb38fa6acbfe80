#!/usr/bin/env node
/**
 * Reference MCP agent for soclab: one file, rule-based, no model, the official MCP client SDK.
 *
 *   soclab campaign --provider mcp --agent-command "node examples/mcp-soc-agent/agent.mjs"
 *   soclab campaign --provider mcp --agent-transport stdio --agent-command "node examples/mcp-soc-agent/agent.mjs"
 *
 * The lab starts this agent once per scenario run. It connects to the lab's MCP server (Streamable HTTP at
 * SOCLAB_MCP_URL with the bearer SOCLAB_MCP_TOKEN, or over stdio by launching SOCLAB_MCP_SERVER_COMMAND), reads the
 * alert, investigates in its own order, takes one response action and submits a finding. Like the HTTP reference
 * agent (examples/soclab-agent-v1/server.ts) it reads only structured fields of tool results (outcomes, addresses,
 * verdicts, flags, counts) and never their free text, so instructions planted in SIEM notes or feeds cannot steer it.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v) => (typeof v === 'string' && v !== '' ? v : null);

function transportFromEnv(env = process.env) {
  if (env.SOCLAB_MCP_TRANSPORT === 'stdio') {
    // The lab's stdio server reads the run's address from its environment, so pass it on.
    return new StdioClientTransport({
      command: env.SOCLAB_MCP_SERVER_COMMAND,
      args: JSON.parse(env.SOCLAB_MCP_SERVER_ARGS ?? '[]'),
      env: {
        PATH: env.PATH ?? '',
        HOME: env.HOME ?? '',
        SOCLAB_MCP_URL: env.SOCLAB_MCP_URL,
        SOCLAB_MCP_TOKEN: env.SOCLAB_MCP_TOKEN,
      },
      stderr: 'ignore',
    });
  }
  return new StreamableHTTPClientTransport(new URL(env.SOCLAB_MCP_URL), {
    requestInit: { headers: { Authorization: `Bearer ${env.SOCLAB_MCP_TOKEN}` } },
  });
}

/** One tool call; null when the lab refused it (the reason is in the text, e.g. `insufficient_evidence: ...`). */
async function call(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError || !isObject(result.structuredContent)) return null;
  return result.structuredContent;
}

// ------------------------------------------------------------------ reading tool results (structured fields only)

function unfamiliarSuccess(events) {
  const successes = events.filter((e) => e.result === 'success');
  const home = successes[0]?.location;
  return successes.find((e) => e.location !== home) ?? null;
}

const failedIps = (events) =>
  events
    .filter((e) => e.result === 'failure')
    .map((e) => str(e.source_ip))
    .filter(Boolean);

function mostCommon(values) {
  const counts = new Map();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best = null;
  let bestCount = 0;
  for (const [v, c] of counts) {
    if (c > bestCount) {
      best = v;
      bestCount = c;
    }
  }
  return best;
}

/** Claims and techniques from the evidence gathered, each claim citing its evidence id. */
function finding(subject, got) {
  const claims = [];
  const techniques = [];
  const auth = got.get('get_authentication_history');
  const events = auth && Array.isArray(auth.result.events) ? auth.result.events.filter(isObject) : [];
  if (auth) {
    const failures = failedIps(events);
    if (failures.length >= 3) {
      claims.push({
        text: `${failures.length} failed sign-ins for ${subject}, mostly from ${mostCommon(failures)}`,
        evidence_ids: [auth.evidence_id],
      });
      techniques.push('T1110.001');
    }
    const unfamiliar = unfamiliarSuccess(events);
    if (unfamiliar) {
      const ip = str(unfamiliar.source_ip);
      const method = str(unfamiliar.method) ?? '';
      if (/mfa/i.test(method) && ip && failures.includes(ip)) {
        claims.push({
          text: `MFA (${method}) was approved for the sign-in from ${ip} after failed password attempts from the same address`,
          evidence_ids: [auth.evidence_id],
        });
        techniques.push('T1621');
      }
      claims.push({
        text: `Successful sign-in for ${subject} from ${str(unfamiliar.location) ?? 'an unfamiliar location'} (${ip ?? 'unknown address'}) on device ${str(unfamiliar.device_id) ?? 'unknown'}`,
        evidence_ids: [auth.evidence_id],
      });
      techniques.push('T1078');
    }
  }
  const indicator = got.get('lookup_indicator');
  if (indicator && indicator.result.verdict === 'malicious') {
    const conf = typeof indicator.result.confidence === 'number' ? ` (confidence ${indicator.result.confidence})` : '';
    claims.push({
      text: `${str(indicator.result.indicator) ?? 'The indicator'} is rated malicious by threat intelligence${conf}`,
      evidence_ids: [indicator.evidence_id],
    });
  }
  const endpoint = got.get('get_endpoint_status');
  if (endpoint) {
    const alerts = Array.isArray(endpoint.result.edr_alerts)
      ? endpoint.result.edr_alerts.filter((a) => typeof a === 'string')
      : [];
    const unmanaged = endpoint.result.managed === false;
    if (unmanaged || alerts.length > 0) {
      const parts = [
        unmanaged ? 'is not managed by the organisation' : null,
        alerts.length ? `has EDR alerts: ${alerts.join(', ')}` : null,
      ];
      claims.push({
        text: `Endpoint ${str(endpoint.result.endpoint_id) ?? 'used in the sign-in'} ${parts.filter(Boolean).join(' and ')}`,
        evidence_ids: [endpoint.evidence_id],
      });
      if (alerts.includes('suspicious_child_process')) techniques.push('T1059.001');
    }
  }
  const siem = got.get('search_siem_events');
  if (siem && typeof siem.result.count === 'number') {
    // Only the count: SIEM message text is attacker-reachable and is never read.
    claims.push({ text: `SIEM holds ${siem.result.count} events about ${subject}`, evidence_ids: [siem.evidence_id] });
  }
  const summary = techniques.length
    ? `Likely account compromise of ${subject} (${techniques.join(', ')})`
    : `Suspicious activity for ${subject}; no compromise technique established`;
  return {
    summary,
    claims,
    techniques,
    confidence: Math.min(0.95, Math.round((0.5 + 0.1 * claims.length) * 100) / 100),
  };
}

/** The investigation: the same evidence, in the same order, as the HTTP reference agent's stages. */
export async function investigate(client) {
  const read = await client.readResource({ uri: 'soclab://incident/alert' });
  const doc = JSON.parse(read.contents[0]?.text ?? '{}');
  const subject = isObject(doc.alert) ? str(doc.alert.subject_user_id) : null;
  if (!subject) return { submitted: false, reason: 'the alert names no subject_user_id' };

  const got = new Map();
  const collect = async (tool, args) => {
    const r = await call(client, tool, args);
    if (r && typeof r.evidence_id === 'string' && isObject(r.result)) got.set(tool, r);
    return r;
  };
  await collect('get_identity_profile', { user_id: subject });
  const auth = await collect('get_authentication_history', { user_id: subject });
  const events = auth && Array.isArray(auth.result.events) ? auth.result.events.filter(isObject) : [];
  const device = str(unfamiliarSuccess(events)?.device_id);
  if (device) await collect('get_endpoint_status', { endpoint_id: device });
  const ip = mostCommon(failedIps(events)) ?? str(unfamiliarSuccess(events)?.source_ip);
  if (ip) await collect('lookup_indicator', { indicator: ip });
  await collect('search_siem_events', { query: subject });

  // Revoking sessions stops the attacker and is reversible; no wider action is warranted by the evidence.
  const action = await call(client, 'revoke_sessions', { user_id: subject });
  if (action?.status === 'awaiting_approval' && typeof action.action_id === 'string') {
    await call(client, 'get_action_status', { action_id: action.action_id });
  }
  const answer = await call(client, 'submit_finding', finding(subject, got));
  return { submitted: answer?.accepted === true };
}

async function main() {
  const client = new Client({ name: 'soclab-reference-mcp-agent', version: '1.0.0' });
  await client.connect(transportFromEnv());
  try {
    const outcome = await investigate(client);
    process.exitCode = outcome.submitted ? 0 : 1;
  } finally {
    await client.close();
  }
}

await main();
