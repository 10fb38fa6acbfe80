import type { ModelProvider } from '@aeh/models';
import type { InvestigationResult } from '../contracts/investigation.js';
import type { InvestigationOptions } from '../orchestrator/investigation.js';

/**
 * A provider that investigates on its own (an MCP agent choosing its steps) instead of answering the orchestrator's
 * seven stages. It receives the same options as the orchestrator, above all the same port, so mediation, evidence,
 * oracles and scoring stay one code path.
 */
export interface SelfDrivenAgent {
  investigate(options: InvestigationOptions): Promise<InvestigationResult>;
  /** The same agent with the untrusted-data marking removed from what it is shown (the `labels` ablation). */
  withoutTrustLabels?(): ModelProvider;
}

/** The provider as a self-driven agent, or null for an ordinary model provider. */
export function asSelfDriven(provider: unknown): SelfDrivenAgent | null {
  const candidate = provider as Partial<SelfDrivenAgent> | null;
  return candidate !== null && typeof candidate === 'object' && typeof candidate.investigate === 'function'
    ? (candidate as SelfDrivenAgent)
    : null;
}
