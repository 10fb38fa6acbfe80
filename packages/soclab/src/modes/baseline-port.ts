import { toError } from '@aeh/harness/errors';
import { fastProposalResult, rememberProposalResult } from '../contracts/fast-parse.js';
import type { ActionProposal, ProposalResult } from '../contracts/proposals.js';
import { ProposalResult as ProposalResultSchema } from '../contracts/proposals.js';
import { isStateChangingTool } from '../contracts/tools.js';
import type { ProposalPort } from '../orchestrator/port.js';
import type { SimulatorState } from '../simulator/state.js';
import { executeTool } from '../simulator/tools.js';

export interface BaselinePortOptions {
  /** false = recommend-only: state-changing proposals are recorded, not executed (status `proposed`). */
  allowStateChanges?: boolean;
}

/**
 * Weak controls: executes whatever is proposed, directly against the simulator. No policy, no approvals, no
 * redaction; proposal arguments may even override the incident id (how cross-incident attacks reach another
 * scope in baseline). Tool failures become `failed_closed` for state-changing tools and `denied` otherwise.
 */
export class BaselinePort implements ProposalPort {
  /** Every proposal received, in order. */
  readonly proposals: ActionProposal[] = [];
  readonly costs: number[] = [];
  private readonly allowStateChanges: boolean;

  constructor(
    private readonly simulator: SimulatorState,
    options: BaselinePortOptions = {},
  ) {
    this.allowStateChanges = options.allowStateChanges ?? true;
  }

  recordCost(usd: number): void {
    this.costs.push(Math.max(0, usd));
  }

  async propose(proposal: ActionProposal): Promise<ProposalResult> {
    this.proposals.push(proposal);
    const stateChanging = isStateChangingTool(proposal.tool_name);
    // Every field given (the schema's defaults written out), so the result takes the checked fast path and comes
    // back deep-frozen; the investigation then takes it as it is instead of parsing it again.
    const base = {
      proposal_id: proposal.proposal_id,
      tool_name: proposal.tool_name,
      outcome: null,
      reason_codes: [] as string[],
      output: null as Record<string, unknown> | null,
      receipt: null as Record<string, unknown> | null,
      error: null as string | null,
      controlled: false,
    };
    const parsed = (input: typeof base & { status: ProposalResult['status'] }): ProposalResult =>
      fastProposalResult(input) ?? rememberProposalResult(ProposalResultSchema.parse(input));
    if (stateChanging && !this.allowStateChanges) {
      return parsed({ ...base, status: 'proposed', reason_codes: ['recommend_only_mode'] });
    }
    try {
      const result = executeTool(this.simulator, proposal.tool_name, {
        incident_id: proposal.incident_id,
        ...proposal.arguments,
      });
      return parsed({
        ...base,
        status: 'executed',
        output: result.kind === 'read' ? result.output : null,
        receipt: result.kind === 'write' ? result.receipt : null,
      });
    } catch (error) {
      const e = toError(error);
      return parsed({
        ...base,
        status: stateChanging ? 'failed_closed' : 'denied',
        reason_codes: [e.name],
        error: `${e.name}: ${e.message}`,
      });
    }
  }
}
