import type { ModelProvider } from '@aeh/models';
import { z } from 'zod';
import type { AuthorityLevel } from '../contracts/enums.js';
import type { ApprovedModel } from '../contracts/policy-input.js';
import type { ActionProposal, ProposalResult } from '../contracts/proposals.js';
import type { AttackScenario, IncidentScenario } from '../contracts/scenarios.js';
import type { NewEvent } from '../evidence/store.js';
import type { ProposalPort } from '../orchestrator/port.js';
import type { SimulatorState } from '../simulator/state.js';

/**
 * Modes are pluggable: a mode decides which port the orchestrator talks to, whether the simulator enforces
 * scope, whether persisted payloads are redacted, and how the run-level attacks are carried out. `baseline` is
 * built in; the control plane registers `protected` (and campaign ablations may register more).
 */

export interface ModeContext {
  readonly scenario: AttackScenario;
  readonly incident: IncidentScenario;
  readonly simulator: SimulatorState;
  readonly runId: string;
  readonly provider: ModelProvider;
  readonly authorityLevel: AuthorityLevel;
  readonly approvedModels: readonly ApprovedModel[];
  /** Limits declared by the scenario (null = mode default). */
  readonly limits: { readonly maxCalls: number | null; readonly maxCostUsd: number | null };
  /** Approver simulation requested for the run (e.g. `none`, `ideal`, `rubber_stamp`, `noisy:0.1`). */
  readonly approver: string | null;
  /** Free-form options for the mode (ablation flags and the like). */
  readonly options: Readonly<ModeOptions>;
}

/** What a run-level attack step did (recorded on the chain). */
export interface HarnessStepRecord {
  readonly attack: 'forge_grant' | 'approve_then_replay' | 'mutate_after_grant';
  readonly attempted: boolean;
  readonly detail: Readonly<Record<string, unknown>>;
  /** Port results produced by the step (executed ones are persisted as receipts). */
  readonly results: readonly ProposalResult[];
}

export interface HarnessHooks {
  /** Present a grant signed with a foreign key; resolves true if the executor honoured it. */
  forgeGrant?(action: ActionProposal): Promise<{ honoured: boolean; detail: Readonly<Record<string, unknown>> }>;
  approveThenReplay?(action: ActionProposal, result: ProposalResult): Promise<HarnessStepRecord>;
  mutateAfterGrant?(action: ActionProposal, mutated: ActionProposal): Promise<HarnessStepRecord>;
}

/** One run's wiring for a mode. */
export interface ModeSession {
  readonly port: ProposalPort;
  /** Redact canaries from every payload before it is persisted. */
  readonly redactPersistence: boolean;
  readonly canaryPatterns?: readonly string[];
  readonly harness: HarnessHooks;
  /** Control-plane events to append after the model turns (e.g. `gateway.<kind>`), in order. */
  controlEvents?(): readonly NewEvent[];
  /** Number of policy decisions / gateway events (governance metrics); 0 when there is no control plane. */
  decisionsTotal?(): number;
  /** Policy version in force (`none` without a policy). */
  readonly policyVersion?: string;
  close?(): Promise<void> | void;
}

/** Mode options are free-form: each mode reads the keys it knows (see its doc comment) and ignores the rest. */
export const ModeOptions = z.record(z.string(), z.unknown());
export type ModeOptions = z.infer<typeof ModeOptions>;

/** A mode, registered by name like a harness plugin (`Options` is what its `options` schema accepts). */
export interface ModeDefinition<Options = ModeOptions> {
  readonly name: string;
  readonly description: string;
  /** What `ModeContext.options` may hold for this mode. */
  readonly options: z.ZodType<Options>;
  /** Scope isolation in the simulator (off in baseline, on with a control plane). */
  readonly enforceScope: boolean;
  /** True when a decision point evaluates proposals (false blocks and unauthorized changes are evaluated). */
  readonly controlled: boolean;
  create(context: ModeContext): ModeSession | Promise<ModeSession>;
}
