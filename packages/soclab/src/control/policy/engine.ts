import { errorMessage, toError } from '@aeh/harness/errors';
import type { Obligation } from '../../contracts/decisions.js';
import type { DecisionOutcome, RiskTier } from '../../contracts/enums.js';
import type { PolicyInput, PolicyInputData } from './input.js';

/** The reason code recorded whenever the policy engine could not give a trustworthy answer. */
export const POLICY_UNAVAILABLE = 'policy_unavailable';

/** What the policy decided about one proposal (the gateway turns it into a `PolicyDecision` contract). */
export interface EngineDecision {
  outcome: DecisionOutcome;
  /** Sorted, de-duplicated, never empty. */
  reason_codes: string[];
  obligations: Obligation[];
  /** The tool's tier from the registry, `high` for a tool the registry does not know. */
  risk_tier: RiskTier;
  policy_version: string;
  /** Ids of the policies that decided (Cedar's determining policies). Empty for a default deny. */
  determining_policies: string[];
}

/** A policy decision point. Implementations must throw `PolicyUnavailableError` rather than guess. */
export interface PolicyEngine {
  /** Declared policy version, recorded on every decision. */
  readonly version: string;
  /** SHA-256 over the policy folder's files (name and content), so a report can name exactly what decided. */
  readonly digest: string;
  decide(input: PolicyInputData): Promise<EngineDecision>;
}

/**
 * The policy engine failed, timed out, was given an invalid document or answered something it must not. Callers
 * fail closed: state changes are refused, and reads too unless degraded read-only continuation is configured.
 */
export class PolicyUnavailableError extends Error {
  override name = 'PolicyUnavailableError';
  readonly code = POLICY_UNAVAILABLE;
}

/** The policy folder could not be loaded (parse error, validation error, bad annotation); names file:line:col. */
export class PolicyLoadError extends Error {
  override name = 'PolicyLoadError';
  constructor(
    message: string,
    readonly problems: readonly string[] = [message],
  ) {
    super(message);
  }
}

/** Risk tier of the proposal's tool as far as the input can tell (high when unknown or unreadable). */
export function riskTierOf(input: PolicyInputData | PolicyInput | undefined): RiskTier {
  const tools = input?.context?.tools;
  const name = input?.proposal?.tool_name;
  if (tools && typeof name === 'string' && Object.hasOwn(tools, name)) {
    const tier = tools[name]?.risk_tier;
    if (tier === 'read_only' || tier === 'low' || tier === 'high') return tier;
  }
  return 'high';
}

/**
 * A fail-closed deny standing in for the engine's answer: `deny` with `policy_unavailable`. Used by the policy test
 * table and by callers that want a decision object for every input.
 */
export function failClosedDecision(input: PolicyInputData | undefined, policyVersion: string): EngineDecision {
  return {
    outcome: 'deny',
    reason_codes: [POLICY_UNAVAILABLE],
    obligations: [],
    risk_tier: riskTierOf(input),
    policy_version: policyVersion,
    determining_policies: [],
  };
}

/** Decide, turning any engine failure into the fail-closed deny. Also returns the error, for the record. */
export async function decideOrFailClosed(
  engine: PolicyEngine,
  input: PolicyInputData,
): Promise<{ decision: EngineDecision; error: Error | null }> {
  try {
    return { decision: await engine.decide(input), error: null };
  } catch (error) {
    return { decision: failClosedDecision(input, engine.version), error: toError(error) };
  }
}

/**
 * Wrap an engine with a deadline. An asynchronous engine that has not answered in `timeoutMs` is abandoned; a
 * synchronous one that took longer than the deadline has its answer discarded. Both fail closed.
 */
export function withDeadline(engine: PolicyEngine, timeoutMs: number): PolicyEngine {
  return {
    version: engine.version,
    digest: engine.digest,
    async decide(input) {
      const started = performance.now();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new PolicyUnavailableError(`policy engine did not answer within ${timeoutMs} ms`)),
          timeoutMs,
        );
      });
      try {
        const decision = await Promise.race([engine.decide(input), timeout]);
        if (performance.now() - started > timeoutMs) {
          throw new PolicyUnavailableError(`policy engine answered after its ${timeoutMs} ms deadline`);
        }
        return decision;
      } catch (error) {
        if (error instanceof PolicyUnavailableError) throw error;
        throw new PolicyUnavailableError(`policy engine failed: ${errorMessage(error)}`, {
          cause: error,
        });
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** An engine that is down: every decision throws. Stands in when the policy folder could not be loaded. */
export function unavailableEngine(reason: string, version = 'unavailable'): PolicyEngine {
  return {
    version,
    digest: '0'.repeat(64),
    async decide() {
      throw new PolicyUnavailableError(reason);
    },
  };
}
