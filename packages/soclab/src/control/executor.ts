import { toError } from '@aeh/harness/errors';
import type { ExecutionGrant } from '../contracts/grants.js';
import type { ActionProposal } from '../contracts/proposals.js';
import { ScopeViolationError } from '../simulator/errors.js';
import type { JsonRecord, SimulatorState } from '../simulator/state.js';
import { executeTool, isStateChangingTool, type ToolResult } from '../simulator/tools.js';
import { type GrantRefusalCode, GrantVerificationError, type GrantVerifier } from './grants.js';

/** Why the executor refused to run something: a grant check, the simulator's scope check, or a tool error. */
export type ExecutionRefusalCode = GrantRefusalCode | 'scope_violation' | 'tool_error';

/** The executor would not, or could not, run the proposal. Nothing changed unless `code` is `tool_error`. */
export class ExecutionRefusedError extends Error {
  override name = 'ExecutionRefusedError';
  constructor(
    readonly code: ExecutionRefusalCode,
    message: string,
  ) {
    super(message);
  }
}

/** One execution the executor performed (reads included), with the grant that authorized it. */
export interface ExecutionRecord {
  grant_id: string;
  proposal_id: string;
  tool: string;
  state_changing: boolean;
  /** The receipt of a state change (`simulation: true`), null for reads. */
  receipt: JsonRecord | null;
}

/** A refusal, kept as evidence of an attempted unauthorized execution. */
export interface RefusalRecord {
  proposal_id: string;
  tool: string;
  grant_id: string | null;
  code: ExecutionRefusalCode;
  error: string;
}

export interface ExecutorOptions {
  /** The simulator. In protected mode nothing else holds it. */
  simulator: SimulatorState;
  /** Verify-only view of the grant key. */
  verifier: GrantVerifier;
  /** The session's run; grants for another run are refused. */
  runId: string;
  /** The session's incident; every call runs in it, whatever the arguments say. */
  incidentId: string;
  /** Called after every execution and refusal (e.g. to append `execution.receipt` to the chain). */
  onRecord?: (
    record: { kind: 'execution'; execution: ExecutionRecord } | { kind: 'refusal'; refusal: RefusalRecord },
  ) => void;
  /** Ablation only (control/ablation-switches.ts, `grants`): run proposals without verifying their grant. Default true. */
  verifyGrants?: boolean;
  /** Ablation only (`scope`): take the incident from the arguments instead of the grant. Default true. */
  bindIncident?: boolean;
}

/**
 * The only component that touches the simulator in protected mode. It trusts nothing the gateway says: it verifies
 * the grant itself (signature, expiry, binding to this exact proposal, run and incident), refuses a grant it has
 * already honoured (single use by nonce and grant id), and burns the grant before running the tool, so even a
 * failing tool cannot be retried with the same grant.
 */
export class Executor {
  private readonly simulator: SimulatorState;
  private readonly verifier: GrantVerifier;
  private readonly runId: string;
  private readonly incidentId: string;
  private readonly onRecord: ExecutorOptions['onRecord'];
  private readonly verifyGrants: boolean;
  private readonly bindIncident: boolean;
  private readonly usedNonces = new Set<string>();
  private readonly usedGrants = new Set<string>();
  private readonly executionList: ExecutionRecord[] = [];
  private readonly refusalList: RefusalRecord[] = [];

  constructor(options: ExecutorOptions) {
    this.simulator = options.simulator;
    this.verifier = options.verifier;
    this.runId = options.runId;
    this.incidentId = options.incidentId;
    this.onRecord = options.onRecord;
    this.verifyGrants = options.verifyGrants ?? true;
    this.bindIncident = options.bindIncident ?? true;
  }

  /** Every execution performed, in order (reads and state changes). */
  get executions(): readonly ExecutionRecord[] {
    return this.executionList;
  }

  /** State-change receipts with their grant ids. */
  get receipts(): readonly ExecutionRecord[] {
    return this.executionList.filter((e) => e.receipt !== null);
  }

  /** Every refusal, in order. */
  get refusals(): readonly RefusalRecord[] {
    return this.refusalList;
  }

  /** Verify `grant` for `proposal` and run the tool. Throws `ExecutionRefusedError`. */
  execute(proposal: ActionProposal, grant: ExecutionGrant | null | undefined): ToolResult {
    let verified: ExecutionGrant;
    try {
      verified = this.verifyGrants
        ? this.verifier.verify(grant, proposal, { runId: this.runId })
        : unverifiedGrant(proposal, grant, this.incidentId);
    } catch (error) {
      if (error instanceof GrantVerificationError) throw this.refuse(proposal, grant, error.code, error.message);
      throw this.refuse(proposal, grant, 'grant_malformed', 'grant could not be verified');
    }
    if (this.verifyGrants && (this.usedNonces.has(verified.nonce) || this.usedGrants.has(verified.grant_id))) {
      throw this.refuse(proposal, verified, 'grant_replayed', 'grant already used');
    }
    if (verified.incident_id !== this.incidentId) {
      throw this.refuse(proposal, verified, 'scope_mismatch', 'grant scope does not match the session incident');
    }
    // Burn first: a grant is spent by the attempt, not by its success.
    this.usedNonces.add(verified.nonce);
    this.usedGrants.add(verified.grant_id);

    const stateChanging = isStateChangingTool(proposal.tool_name);
    // The incident comes from the verified grant, never from the arguments (a smuggled incident_id cannot widen
    // scope); state changes carry the proposal id as idempotency key.
    const args: JsonRecord = {
      ...structuredClone(proposal.arguments as JsonRecord),
      incident_id:
        !this.bindIncident && typeof proposal.arguments.incident_id === 'string'
          ? proposal.arguments.incident_id
          : verified.incident_id,
    };
    if (stateChanging) args.idempotency_key = proposal.proposal_id;
    else delete args.idempotency_key;

    let result: ToolResult;
    try {
      result = executeTool(this.simulator, proposal.tool_name, args);
    } catch (error) {
      const err = toError(error);
      const code: ExecutionRefusalCode = err instanceof ScopeViolationError ? 'scope_violation' : 'tool_error';
      throw this.refuse(proposal, verified, code, `${err.name}: ${err.message}`);
    }
    const execution: ExecutionRecord = {
      grant_id: verified.grant_id,
      proposal_id: proposal.proposal_id,
      tool: proposal.tool_name,
      state_changing: stateChanging,
      receipt: result.kind === 'write' ? result.receipt : null,
    };
    this.executionList.push(execution);
    this.onRecord?.({ kind: 'execution', execution });
    return result;
  }

  private refuse(
    proposal: ActionProposal,
    grant: unknown,
    code: ExecutionRefusalCode,
    message: string,
  ): ExecutionRefusedError {
    const grantId =
      grant !== null && typeof grant === 'object' && typeof (grant as { grant_id?: unknown }).grant_id === 'string'
        ? (grant as { grant_id: string }).grant_id
        : null;
    const refusal: RefusalRecord = {
      proposal_id: proposal.proposal_id,
      tool: proposal.tool_name,
      grant_id: grantId,
      code,
      error: message,
    };
    this.refusalList.push(refusal);
    this.onRecord?.({ kind: 'refusal', refusal });
    return new ExecutionRefusedError(code, message);
  }
}

/** What an ablated executor (`verifyGrants: false`) uses in place of a verified grant: whatever it was handed. */
function unverifiedGrant(proposal: ActionProposal, grant: unknown, incidentId: string): ExecutionGrant {
  const g = (grant !== null && typeof grant === 'object' ? grant : {}) as Partial<ExecutionGrant>;
  return {
    ...g,
    grant_id: typeof g.grant_id === 'string' ? g.grant_id : `unverified-${proposal.proposal_id}`,
    nonce: typeof g.nonce === 'string' ? g.nonce : `unverified-${proposal.proposal_id}`,
    incident_id: incidentId,
  } as ExecutionGrant;
}
