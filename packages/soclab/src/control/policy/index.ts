import { errorMessage } from '@aeh/harness/errors';
import { type CedarEngineOptions, CedarPolicyEngine } from './cedar-engine.js';
import { type PolicyEngine, PolicyLoadError, unavailableEngine, withDeadline } from './engine.js';

export * from './cedar-engine.js';
export * from './engine.js';
export * from './facts.js';
export * from './folder.js';
export * from './input.js';
export * from './test-table.js';

/** Default decision deadline. A preparsed decision takes well under a millisecond; this only catches a hang. */
export const DEFAULT_DECISION_TIMEOUT_MS = 1000;

export interface LoadedPolicyEngine {
  /** The engine to use: the loaded policy behind a deadline, or an engine that fails every decision. */
  engine: PolicyEngine;
  /** Why loading failed (the engine then fails closed on every proposal). */
  error: PolicyLoadError | null;
}

/**
 * Load the policy for protected mode. A folder that cannot be loaded does not stop the run: every proposal then
 * fails closed with `policy_unavailable`, which is exactly what protected mode must do without a policy.
 */
export function loadPolicyEngine(options: CedarEngineOptions & { timeoutMs?: number } = {}): LoadedPolicyEngine {
  try {
    const engine = CedarPolicyEngine.load(options);
    return { engine: withDeadline(engine, options.timeoutMs ?? DEFAULT_DECISION_TIMEOUT_MS), error: null };
  } catch (error) {
    const loadError = error instanceof PolicyLoadError ? error : new PolicyLoadError(errorMessage(error));
    return { engine: unavailableEngine(`policy could not be loaded: ${loadError.message}`), error: loadError };
  }
}
