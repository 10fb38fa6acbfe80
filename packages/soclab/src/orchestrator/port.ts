import type { ActionProposal, ProposalResult } from '../contracts/proposals.js';

/**
 * The orchestrator's only tool interface. Every tool the model wants becomes an ActionProposal that crosses
 * this port; the implementation decides what happens (the baseline port executes it directly, the protected
 * gateway sends it through policy, approvals, a signed grant and the executor).
 */
export interface ProposalPort {
  propose(proposal: ActionProposal): Promise<ProposalResult>;
  /** Called after every model turn with that turn's cost (USD, 0 when unknown), so spend limits can trip. */
  recordCost?(usd: number): void;
  /**
   * Called after every model turn with the provider and model the turn actually reported, so a control plane can
   * check the model on every turn (not only the label a proposal carries).
   */
  recordTurn?(turn: { provider: string; model: string }): void;
}
