import { contentHash } from '../contracts/canonical.js';
import { TOOLS_BY_NAME, type ToolDefinition } from '../contracts/tools.js';

// The catalogue lives in contracts/tools.ts; re-exported here so simulator users find it next to the tools.
export {
  DEFAULT_TOOL_REGISTRY,
  isStateChangingTool,
  READ_ONLY_TOOLS,
  STATE_CHANGING_TOOLS,
  TOOL_DEFINITIONS,
  TOOL_RISK_TIERS,
  TOOLS_BY_NAME,
  type ToolDefinition,
  toolParameterSchema,
} from '../contracts/tools.js';

import { InvalidArgumentError, ToolNotFoundError, UnknownResourceError } from './errors.js';
import type { JsonRecord, SimulatorState } from './state.js';

/** What a tool returned: a read output or a state-change receipt. */
export type ToolResult = { kind: 'read'; output: JsonRecord } | { kind: 'write'; receipt: JsonRecord };

function checkArgs(tool: ToolDefinition, args: JsonRecord): void {
  for (const q of tool.params) {
    const v = args[q.name];
    if (v === undefined || v === null) {
      if (q.required) throw new InvalidArgumentError(`${tool.name}: missing required argument '${q.name}'`);
      continue;
    }
    const ok = q.type === 'string' ? typeof v === 'string' : typeof v === 'number' && Number.isInteger(v);
    if (!ok) throw new InvalidArgumentError(`${tool.name}: argument '${q.name}' must be ${q.type}`);
  }
}

const withHash = (record: JsonRecord): JsonRecord => ({
  ...structuredClone(record),
  content_hash: contentHash(record),
  trust: 'untrusted',
});

function resolveUser(state: SimulatorState, raw: string): string {
  const id = state.resolveUserId(raw);
  if (!id) throw new UnknownResourceError(`unknown user '${raw}'`);
  return id;
}

/** The user record behind a raw id or alias; an unknown user is a clear error, as for every other lookup. */
function userRecord(state: SimulatorState, raw: string) {
  const id = resolveUser(state, raw);
  const record = state.users[id];
  if (!record) throw new UnknownResourceError(`unknown user '${raw}'`);
  return record;
}

/** The resolved subject of a user-targeted write; checkArgs already requires `user_id` for those tools. */
function subjectUser(name: string, resolved: string | null): string {
  if (resolved === null) throw new InvalidArgumentError(`${name}: missing required argument 'user_id'`);
  return resolved;
}

function endpoint(state: SimulatorState, id: string): JsonRecord {
  const record = state.endpoints[id];
  if (!record) throw new UnknownResourceError(`unknown endpoint '${id}'`);
  return record;
}

function recordChange(
  state: SimulatorState,
  tool: string,
  args: JsonRecord,
  idempotencyKey: string | null,
  prior: unknown,
  next: unknown,
): JsonRecord {
  const receipt: JsonRecord = {
    simulation: true,
    tool,
    execution_id: `exec-${String(state.executionLog.length + 1).padStart(4, '0')}`,
    prior_state: structuredClone(prior),
    new_state: structuredClone(next),
    changed: JSON.stringify(prior) !== JSON.stringify(next),
  };
  state.executionLog.push({
    execution_id: receipt.execution_id as string,
    tool,
    arguments: structuredClone(args),
    idempotency_key: idempotencyKey,
    receipt,
  });
  return structuredClone(receipt);
}

/**
 * Run one simulated tool. `args` must contain `incident_id`; `idempotency_key` (state-changing tools) makes a
 * repeated call return the stored receipt without changing anything. Unknown extra arguments are ignored on
 * purpose (so baseline mode accepts smuggled arguments); declared ones are type-checked.
 */
export function executeTool(state: SimulatorState, name: string, rawArgs: Readonly<JsonRecord>): ToolResult {
  const tool = TOOLS_BY_NAME.get(name);
  if (!tool) throw new ToolNotFoundError(`no such tool '${name}'`);
  const { idempotency_key: keyArg, ...args } = rawArgs as JsonRecord;
  const incidentId = args.incident_id;
  if (typeof incidentId !== 'string' || incidentId.length === 0) {
    throw new InvalidArgumentError(`${name}: missing required argument 'incident_id'`);
  }
  state.assertIncident(incidentId);
  checkArgs(tool, args);

  if (!tool.stateChanging) {
    state.accessLog.push({ tool: name, incident_id: incidentId, arguments: structuredClone(args) });
    return { kind: 'read', output: read(state, name, args) };
  }

  // Resolution and type checks come before the idempotency lookup, so a bad target never replays a receipt.
  const logArgs: JsonRecord = { ...args };
  let resolvedUser: string | null = null;
  if (typeof args.user_id === 'string') {
    resolvedUser = resolveUser(state, args.user_id);
    logArgs.resolved_user_id = resolvedUser;
  }
  if (name === 'isolate_endpoint') endpoint(state, args.endpoint_id as string);

  const key = typeof keyArg === 'string' && keyArg.length > 0 ? keyArg : null;
  if (key) {
    const earlier = state.executionLog.find((e) => e.idempotency_key === key);
    if (earlier) return { kind: 'write', receipt: structuredClone(earlier.receipt) };
  }

  switch (name) {
    case 'create_incident': {
      const prior = state.incidentsCreated.map((t) => t.ticket_id);
      state.incidentsCreated.push({
        ticket_id: `TCK-${String(state.incidentsCreated.length + 1).padStart(4, '0')}`,
        title: args.title as string,
        severity: args.severity as string,
      });
      const next = state.incidentsCreated.map((t) => t.ticket_id);
      return { kind: 'write', receipt: recordChange(state, name, logArgs, key, { tickets: prior }, { tickets: next }) };
    }
    case 'revoke_sessions': {
      const user = subjectUser(name, resolvedUser);
      const before = state.revocations(user);
      state.revokedSessions[user] = before + 1;
      return {
        kind: 'write',
        receipt: recordChange(state, name, logArgs, key, { revocations: before }, { revocations: before + 1 }),
      };
    }
    case 'disable_account': {
      const record = userRecord(state, subjectUser(name, resolvedUser));
      const before = record.account_enabled;
      record.account_enabled = false;
      return {
        kind: 'write',
        receipt: recordChange(state, name, logArgs, key, { account_enabled: before }, { account_enabled: false }),
      };
    }
    case 'isolate_endpoint': {
      const record = endpoint(state, args.endpoint_id as string);
      const before = record.isolated;
      record.isolated = true;
      return {
        kind: 'write',
        receipt: recordChange(state, name, logArgs, key, { isolated: before }, { isolated: true }),
      };
    }
    case 'block_indicator': {
      const prior = [...state.blockedIndicators].sort();
      state.blockedIndicators.add(args.indicator as string);
      const next = [...state.blockedIndicators].sort();
      return { kind: 'write', receipt: recordChange(state, name, logArgs, key, { blocked: prior }, { blocked: next }) };
    }
    default:
      throw new ToolNotFoundError(`no such tool '${name}'`);
  }
}

function read(state: SimulatorState, name: string, args: JsonRecord): JsonRecord {
  switch (name) {
    case 'get_identity_profile':
      return withHash(userRecord(state, args.user_id as string));
    case 'get_authentication_history': {
      const user = resolveUser(state, args.user_id as string);
      const limit = Math.max(1, typeof args.limit === 'number' ? args.limit : 50);
      const events = state.authenticationEvents.filter((e) => e.user_id === user).slice(0, limit);
      return {
        user_id: user,
        count: events.length,
        events: structuredClone(events),
        content_hash: contentHash(events),
        trust: 'untrusted',
      };
    }
    case 'get_endpoint_status':
      return withHash(endpoint(state, args.endpoint_id as string));
    case 'lookup_indicator': {
      const indicator = args.indicator as string;
      const record = state.indicators[indicator];
      if (!record) return { indicator, verdict: 'unknown', confidence: 0, tags: [], trust: 'untrusted' };
      return withHash(record);
    }
    case 'search_siem_events': {
      const query = args.query as string;
      const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
      const events = state.siemEvents
        .filter((e) => {
          const text = JSON.stringify(e).toLowerCase();
          return terms.every((t) => text.includes(t));
        })
        .map(withHashKeepTrust);
      return { query, count: events.length, events, trust: 'untrusted' };
    }
    default:
      throw new ToolNotFoundError(`no such tool '${name}'`);
  }
}

/** SIEM events keep whatever `trust` their data claims (a forged record may claim "trusted"). */
const withHashKeepTrust = (record: JsonRecord): JsonRecord => ({
  ...structuredClone(record),
  content_hash: contentHash(record),
});
