import type { AuthorityLevel } from '../contracts/enums.js';
import type { GatewayEvent } from '../contracts/gateway.js';
import { DEFAULT_APPROVED_MODELS } from '../contracts/gateway.js';
import type { CanonicalModelEvent } from '../contracts/model-turns.js';
import type { ApprovedModel } from '../contracts/policy-input.js';
import type { LegitimateAction } from '../contracts/scenarios.js';
import { type Ablation, permitAllEngine, UNLIMITED } from '../control/ablation-switches.js';
import { ApprovalService } from '../control/approvals.js';
import {
  type ApproverMode,
  createSimulatedApprover,
  type ExternalApprover,
  formatApproverMode,
  parseApproverMode,
} from '../control/approver.js';
import { type ExecutionRecord, Executor, type RefusalRecord } from '../control/executor.js';
import { ControlGateway } from '../control/gateway.js';
import { GrantSigner } from '../control/grants.js';
import type { PolicyEngine, PolicyLoadError } from '../control/policy/engine.js';
import { loadPolicyEngine } from '../control/policy/index.js';
import { DEFAULT_CANARY_PATTERNS, redact } from '../control/redaction.js';
import type { SimulatorState } from '../simulator/state.js';

/** The default run limits of protected mode. */
export const PROTECTED_DEFAULT_LIMITS = Object.freeze({ max_calls: 40, max_cost_usd: 2.0, max_elapsed_seconds: 300 });

export interface ProtectedSessionOptions {
  /** The run's simulator. It is handed to the executor and to nothing else; scope isolation must be on. */
  simulator: SimulatorState;
  runId: string;
  authorityLevel?: AuthorityLevel;
  /** `[provider, model]` pairs; default `[["mock", "mock-investigator-v1"]]`. */
  approvedModels?: readonly ApprovedModel[];
  /** Scenario limits; null or missing values take the protected defaults (40 calls, $2, 300 s). */
  limits?: { max_calls?: number | null; max_cost_usd?: number | null; max_elapsed_seconds?: number | null };
  /** A policy engine; default: load `SOCLAB_POLICY_DIR` or the bundled policy (failing closed if it cannot load). */
  engine?: PolicyEngine;
  policyDir?: string;
  /** `none` (default), `ideal`, `rubber_stamp` or `noisy:p`. */
  approver?: ApproverMode | string;
  /** A non-simulated approver (e.g. a person through the API's inbox); replaces `approver` when set. */
  externalApprover?: ExternalApprover;
  /** What the ideal and noisy approvers consider legitimate. */
  legitimateActions?: readonly LegitimateAction[];
  approverSeed?: number;
  /** Grant key; default `SOCLAB_GRANT_SIGNING_KEY` or a fresh random key for this run. */
  signingKey?: string | Uint8Array;
  env?: NodeJS.ProcessEnv;
  canaryPatterns?: readonly string[];
  degradedReadOnly?: boolean;
  /** Every control record as it happens (gateway events and executor records), e.g. for live chain appends. */
  onRecord?: (record: ControlRecord) => void;
  /** Controls to run without, for ablation campaigns only (see control/ablation-switches.ts). Default: none. */
  ablation?: Ablation;
}

/** One thing the control plane did, in the order it happened. */
export type ControlRecord =
  | { kind: 'gateway'; event: GatewayEvent }
  | { kind: 'execution'; execution: ExecutionRecord }
  | { kind: 'refusal'; refusal: RefusalRecord };

/** An event for the evidence chain. */
export interface ControlChainEvent {
  event_type: string;
  payload: Record<string, unknown>;
}

/**
 * Everything protected mode adds to one run: the gateway (the orchestrator's port), the policy engine, approvals,
 * the grant signer and the executor — the only holder of the simulator.
 */
export interface ProtectedSession {
  readonly mode: 'protected';
  readonly runId: string;
  /** The orchestrator's port (also has `recordCost`). */
  readonly port: ControlGateway;
  readonly gateway: ControlGateway;
  readonly executor: Executor;
  readonly approvals: ApprovalService;
  readonly signer: GrantSigner;
  readonly policyVersion: string;
  readonly policyDigest: string;
  /** Set when the policy folder could not be loaded (every proposal then fails closed). */
  readonly policyLoadError: PolicyLoadError | null;
  readonly approverMode: string;
  /** Pass as the orchestrator's `onTurn`: the approved-model check on every turn. */
  observeTurn(event: CanonicalModelEvent): void;
  /** Redact canaries (configured patterns and this run's exact values) before anything is persisted. */
  redactForPersistence<T>(value: T): T;
  /** Every control record so far, in order. */
  records(): readonly ControlRecord[];
  /**
   * The control plane's chain events in the order they happened (payloads redacted): `gateway.<kind>` per gateway
   * event, `executor.execution` per execution (with its grant id and, for state changes, the receipt),
   * `executor.refusal` per refused grant or tool call.
   */
  chainEvents(): ControlChainEvent[];
}

/**
 * Build protected mode for one run.
 *
 * @example
 *   const simulator = createSimulator({ enforceScope: true, runId });
 *   const session = createProtectedSession({ simulator, runId });
 *   const result = await runInvestigation({ ..., port: session.port, onTurn: (e) => session.observeTurn(e) });
 */
export function createProtectedSession(options: ProtectedSessionOptions): ProtectedSession {
  const simulator = options.simulator;
  const ablation: Ablation = options.ablation ?? new Set();
  if (!simulator.enforceScope && !ablation.has('scope')) {
    throw new Error('protected mode needs the simulator built with scope isolation on (enforceScope: true)');
  }
  const patterns = options.canaryPatterns ?? DEFAULT_CANARY_PATTERNS;
  const loaded = options.engine
    ? { engine: options.engine, error: null }
    : ablation.has('policy')
      ? { engine: permitAllEngine(patterns), error: null }
      : loadPolicyEngine({ dir: options.policyDir });
  const engine = loaded.engine;
  const redactionPatterns = [...patterns, ...simulator.canarySecrets];
  const records: ControlRecord[] = [];
  const push = (record: ControlRecord) => {
    records.push(record);
    options.onRecord?.(record);
  };

  const signer = new GrantSigner({ key: options.signingKey, env: options.env });
  const approvals = new ApprovalService();
  const executor = new Executor({
    simulator,
    verifier: signer.verifier(),
    runId: options.runId,
    incidentId: simulator.incidentId,
    onRecord: (r) => push(r.kind === 'execution' ? r : { kind: 'refusal', refusal: r.refusal }),
    verifyGrants: !ablation.has('grants'),
    bindIncident: !ablation.has('scope'),
  });
  const approverMode: ApproverMode = options.externalApprover
    ? { kind: 'none' }
    : typeof options.approver === 'string'
      ? parseApproverMode(options.approver)
      : (options.approver ?? { kind: 'none' });
  const approver =
    options.externalApprover ??
    createSimulatedApprover(approverMode, {
      legitimate: options.legitimateActions,
      seed: options.approverSeed,
    });
  const limits = ablation.has('limits') ? UNLIMITED : (options.limits ?? {});
  const gateway = new ControlGateway({
    config: {
      incident_id: simulator.incidentId,
      authority_level: options.authorityLevel ?? 'L4',
      approved_models: (options.approvedModels ?? DEFAULT_APPROVED_MODELS).map(([p, m]) => [p, m]),
      limits: {
        max_calls: limits.max_calls ?? PROTECTED_DEFAULT_LIMITS.max_calls,
        max_cost_usd: limits.max_cost_usd ?? PROTECTED_DEFAULT_LIMITS.max_cost_usd,
        max_elapsed_seconds: limits.max_elapsed_seconds ?? PROTECTED_DEFAULT_LIMITS.max_elapsed_seconds,
      },
      degraded_read_only: options.degradedReadOnly ?? false,
      canary_patterns: [...patterns],
      protected_assets: {
        user_ids: [...simulator.protectedAssets.user_ids],
        endpoint_ids: [...simulator.protectedAssets.endpoint_ids],
        indicators: [...simulator.protectedAssets.indicators],
      },
    },
    engine,
    executor,
    signer,
    approvals,
    runId: options.runId,
    approver,
    canaries: simulator.canarySecrets,
    onEvent: (event) => push({ kind: 'gateway', event }),
    ablation,
  });

  const redactForPersistence = <T>(value: T): T =>
    ablation.has('redaction') ? value : redact(value, redactionPatterns);
  return {
    mode: 'protected',
    runId: options.runId,
    port: gateway,
    gateway,
    executor,
    approvals,
    signer,
    policyVersion: engine.version,
    policyDigest: engine.digest,
    policyLoadError: loaded.error,
    approverMode: options.externalApprover?.name ?? formatApproverMode(approverMode),
    observeTurn: (event) => {
      gateway.observeTurn(event.provider, event.model);
    },
    redactForPersistence,
    records: () => records,
    chainEvents: () =>
      records.map((record) => {
        if (record.kind === 'gateway') {
          return { event_type: `gateway.${record.event.kind}`, payload: redactForPersistence({ ...record.event }) };
        }
        if (record.kind === 'execution') {
          return { event_type: 'executor.execution', payload: redactForPersistence({ ...record.execution }) };
        }
        return { event_type: 'executor.refusal', payload: redactForPersistence({ ...record.refusal }) };
      }),
  };
}
