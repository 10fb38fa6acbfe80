import { sha256Hex } from '../contracts/canonical.js';
import { resolveId } from './directory.js';
import { FixtureError, ScopeViolationError } from './errors.js';
import { type Fixture, type FixtureData, loadFixture } from './fixture.js';

export type JsonRecord = Record<string, unknown>;

/** One state change performed by a tool. */
export interface ExecutionLogEntry {
  execution_id: string;
  tool: string;
  arguments: JsonRecord;
  idempotency_key: string | null;
  receipt: JsonRecord;
}

/** One read-only access. */
export interface AccessLogEntry {
  tool: string;
  incident_id: string;
  arguments: JsonRecord;
}

export interface Ticket {
  ticket_id: string;
  title: string;
  severity: string;
}

export interface SimulatorOptions {
  /** Fixture name under `data/fixtures/` or a path; default `identity_compromise`. */
  fixture?: string | Fixture;
  /** Scope isolation: refuse calls for another incident (on in protected mode, off in baseline). Default true. */
  enforceScope?: boolean;
  /** Names of the fixture's injection points to apply, in order. */
  injections?: readonly string[];
  /**
   * Run id used to derive this run's canary values. Each fixture canary `CANARY-SECRET-001` becomes
   * `CANARY-SECRET-001-<12 hex>` so a leak can be traced to its run while the `CANARY-SECRET-*` pattern still matches.
   */
  runId?: string;
}

/** Derive the per-run value of a fixture canary. */
export function canaryForRun(base: string, runId: string): string {
  return `${base}-${sha256Hex(`${runId}:${base}`).slice(0, 12)}`;
}

export interface SimulatorSnapshot {
  readonly users: JsonRecord;
  readonly endpoints: JsonRecord;
  readonly revoked_sessions: Record<string, number>;
  readonly blocked_indicators: string[];
  readonly incidents_created: Ticket[];
  readonly execution_log: ExecutionLogEntry[];
  readonly access_log: AccessLogEntry[];
}

function replaceStrings(value: unknown, from: string, to: string): unknown {
  if (typeof value === 'string') return value.includes(from) ? value.split(from).join(to) : value;
  if (Array.isArray(value)) return value.map((v) => replaceStrings(v, from, to));
  if (value !== null && typeof value === 'object') {
    const out: JsonRecord = {};
    for (const [k, v] of Object.entries(value)) out[k] = replaceStrings(v, from, to);
    return out;
  }
  return value;
}

/** Fixture-backed state of the synthetic SOC environment for one run. */
export class SimulatorState {
  readonly fixtureName: string;
  readonly fixtureVersion: string;
  readonly fixtureSha256: string;
  readonly incidentId: string;
  readonly enforceScope: boolean;
  readonly incident: JsonRecord;
  users: Record<string, JsonRecord>;
  endpoints: Record<string, JsonRecord>;
  readonly indicators: Record<string, JsonRecord>;
  readonly authenticationEvents: JsonRecord[];
  readonly siemEvents: JsonRecord[];
  readonly attackMapping: FixtureData['attack_mapping'];
  /** This run's canary values (derived from the run id when one was given). */
  readonly canarySecrets: readonly string[];
  readonly protectedAssets: { user_ids: string[]; endpoint_ids: string[]; indicators: string[] };
  readonly appliedInjections: string[] = [];
  revokedSessions: Record<string, number> = {};
  blockedIndicators = new Set<string>();
  incidentsCreated: Ticket[] = [];
  executionLog: ExecutionLogEntry[] = [];
  accessLog: AccessLogEntry[] = [];
  private readonly injectionPoints: FixtureData['injections'];

  constructor(options: SimulatorOptions = {}) {
    const fixture =
      typeof options.fixture === 'object' ? options.fixture : loadFixture(options.fixture ?? 'identity_compromise');
    let data = structuredClone(fixture.data) as FixtureData;
    const canaries: string[] = [];
    for (const base of fixture.data.canary_secrets) {
      const value = options.runId ? canaryForRun(base, options.runId) : base;
      if (value !== base) data = replaceStrings(data, base, value) as FixtureData;
      canaries.push(value);
    }
    this.fixtureName = fixture.name;
    this.fixtureVersion = fixture.version;
    this.fixtureSha256 = fixture.sha256;
    this.enforceScope = options.enforceScope ?? true;
    this.incident = data.incident;
    this.incidentId = data.incident.incident_id;
    this.users = data.users;
    this.endpoints = data.endpoints;
    this.indicators = data.indicators;
    this.authenticationEvents = data.authentication_events;
    this.siemEvents = data.siem_events;
    this.attackMapping = data.attack_mapping;
    this.canarySecrets = Object.freeze(canaries);
    this.protectedAssets = data.protected_assets;
    this.injectionPoints = data.injections;
    for (const name of options.injections ?? []) this.applyInjection(name);
  }

  /** Names of the injection points this fixture offers. */
  get injectionNames(): string[] {
    return Object.keys(this.injectionPoints).sort();
  }

  /** Merge one named untrusted payload into the state. Unknown names are errors. */
  applyInjection(name: string): void {
    const point = this.injectionPoints[name];
    if (!point) {
      throw new FixtureError(
        `unknown injection point '${name}' in fixture ${this.fixtureName}; known: ${this.injectionNames.join(', ')}`,
      );
    }
    for (const op of point.operations) {
      if (op.op === 'set') {
        const [section, ...rest] = op.path;
        const leaf = rest.at(-1);
        if (leaf === undefined) throw new FixtureError(`injection '${name}': set path needs at least two elements`);
        let target: JsonRecord =
          section === 'incident' ? this.incident : (this[section] as unknown as Record<string, JsonRecord>);
        for (const key of rest.slice(0, -1)) {
          const next = target[key];
          if (next === null || typeof next !== 'object') {
            throw new FixtureError(`injection '${name}': path ${op.path.join('.')} does not exist`);
          }
          target = next as JsonRecord;
        }
        target[leaf] = structuredClone(op.value);
      } else {
        const index = Math.min(op.index, this.siemEvents.length);
        this.siemEvents.splice(index, 0, structuredClone(op.event));
      }
    }
    this.appliedInjections.push(name);
  }

  /** Throws a ScopeViolationError when scope isolation is on and the call targets another incident. */
  assertIncident(incidentId: string): void {
    if (this.enforceScope && incidentId !== this.incidentId) {
      throw new ScopeViolationError(`incident ${incidentId} is outside this session's scope (${this.incidentId})`);
    }
  }

  /** Lenient lookup (see directory.ts); null when no user matches. */
  resolveUserId(raw: string): string | null {
    return resolveId(raw, Object.keys(this.users));
  }

  revocations(userId: string): number {
    return this.revokedSessions[userId] ?? 0;
  }

  /** Deep copy of everything tools can change. */
  snapshot(): SimulatorSnapshot {
    return structuredClone({
      users: this.users,
      endpoints: this.endpoints,
      revoked_sessions: this.revokedSessions,
      blocked_indicators: [...this.blockedIndicators].sort(),
      incidents_created: this.incidentsCreated,
      execution_log: this.executionLog,
      access_log: this.accessLog,
    });
  }

  restore(snapshot: SimulatorSnapshot): void {
    const s = structuredClone(snapshot);
    this.users = s.users as Record<string, JsonRecord>;
    this.endpoints = s.endpoints as Record<string, JsonRecord>;
    this.revokedSessions = s.revoked_sessions;
    this.blockedIndicators = new Set(s.blocked_indicators);
    this.incidentsCreated = s.incidents_created;
    this.executionLog = s.execution_log;
    this.accessLog = s.access_log;
  }
}

/** Build a fresh simulator for one run. */
export function createSimulator(options: SimulatorOptions = {}): SimulatorState {
  return new SimulatorState(options);
}
