import type { Agent, RetryPolicy, RunContext, ToolCallRecordInput } from '@aeh/harness';
import { errorMessage } from '@aeh/harness/errors';
import { agentOutput, defineAdapter } from '@aeh/harness/plugins';
import { DEFAULT_RETRY, RetryBudget } from '@aeh/harness/retry';
import { withTraceparent } from '@aeh/harness/telemetry/context';
import type { Tracing } from '@aeh/harness/telemetry/otel';
import type { Env, ModelPrice, ModelProvider } from '@aeh/models';
import { z } from 'zod';
import { sha256Hex } from '../contracts/canonical.js';
import { AuthorityLevel } from '../contracts/enums.js';
import { DEFAULT_APPROVED_MODELS } from '../contracts/gateway.js';
import type { ApprovedModel } from '../contracts/policy-input.js';
import type { AttackScenario } from '../contracts/scenarios.js';
import { DEFAULT_CANARY_PATTERNS, redact, redactText } from '../control/redaction.js';
import { type EvidenceStore, openEvidenceStore } from '../evidence/store.js';
import { registerAblationModes } from '../modes/ablation-modes.js';
import { getMode } from '../modes/registry.js';
import { MockAdversaryProvider } from '../providers/mock.js';
import { isUnpriced, withDeclaredPrice } from '../providers/priced.js';
import { approvedModelsFor, checkProviderSelection, soclabProviderRegistry } from '../providers/registry.js';
import { getScenario, loadCorpus, type ScenarioCorpus } from '../scenarios/loader.js';
import { runScenario, type ScenarioRunResult } from '../scenarios/runner.js';
import { solved } from '../scoring/engine.js';
import { recordScenarioSpans } from '../telemetry/scenario-spans.js';
import { withoutTrustLabels } from './labels.js';
import { type DecisionRow, RUN_RECORD_SCHEMA, type RunRecord } from './record.js';

/** How one scenario run is configured: mode, model, authority, approver, and where evidence goes. */
export interface SoclabAgentConfig {
  /** OpenTelemetry (when tracing is on): each scenario run records its spans under the harness's agent call. */
  tracing?: Tracing;
  /** A registered mode: `baseline`, `protected`, or an ablation mode `protected-without-<control>`. */
  mode: string;
  /** Provider id (default `mock`, the scripted adversary). */
  provider?: string;
  /** Model label for live providers (the mock takes each scenario's own model). */
  model?: string | null;
  authorityLevel?: AuthorityLevel;
  /** Approver simulation (`none`, `ideal`, `rubber_stamp`, `noisy:p`); default none. */
  approver?: string | null;
  /** Extra options for the mode (e.g. `policyDir`). */
  modeOptions?: Readonly<Record<string, unknown>>;
  /** Strip the untrusted-data labels from what the model sees (the `labels` ablation). */
  withoutLabels?: boolean;
  /** Where chains go; default the store at `evidenceUrl` (or SOCLAB_DATABASE_URL, else runs/soclab.sqlite). */
  evidence?: EvidenceStore;
  evidenceUrl?: string;
  corpus?: ScenarioCorpus;
  /** Build the model for a scenario (overrides `provider`; tests and embedding applications). */
  providerFactory?: (scenario: AttackScenario) => ModelProvider;
  /** Wrap each scenario run's provider (called inside the run; the API's resume tape, providers/resume-tape.ts). */
  wrapProvider?: (provider: ModelProvider) => ModelProvider;
  /** Approved (provider, model) pairs; default the lab's for the mock, plus the chosen pair for live providers. */
  approvedModels?: readonly ApprovedModel[];
  /** Retry policy for retryable provider failures; one budget is shared by every run of this agent (campaign). */
  retry?: Partial<RetryPolicy>;
  /** Environment the provider is configured from (default process.env). */
  env?: Env;
  /** Azure OpenAI deployment name, when it differs from the model. */
  deployment?: string;
  /** A declared price for a model the price table does not know (USD per million input / output tokens). */
  price?: ModelPrice;
  /** Run a protected campaign with an unpriced model anyway (its spend limit then cannot trip). */
  allowUnpriced?: boolean;
}

const DECISION_TYPES = new Set([
  'gateway.policy_decision',
  'gateway.policy_unavailable',
  'gateway.approval_requested',
  'gateway.approval_decided',
  'gateway.approval_skipped',
  'gateway.approval_binding_failed',
  'gateway.executed',
  'gateway.execution_refused',
  'executor.refusal',
  'execution.receipt',
  'harness.attack',
]);

const safeJson = (value: unknown, max = 300): string => {
  const text = redactText(JSON.stringify(value) ?? 'null', DEFAULT_CANARY_PATTERNS);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
};

/** The run input of a case: `{ scenario: "ATK-001" }` or just the id. */
function scenarioIdOf(input: string | Record<string, unknown>): string {
  if (typeof input === 'string') return input.trim();
  const id = input.scenario ?? input.scenario_id;
  if (typeof id !== 'string' || id.trim() === '')
    throw new Error('case input needs a scenario id ({ scenario: "ATK-001" })');
  return id.trim();
}

/** Build the journal record of one scenario run (canaries redacted; nothing but what the report needs). */
async function recordOf(
  result: ScenarioRunResult,
  scenario: AttackScenario,
  repeat: number,
  store: EvidenceStore,
): Promise<RunRecord> {
  // The stored rows, with only the decisions' payloads parsed back (a run has ~22 events and a few decisions).
  const rows = await store.rows(result.run_id);
  const decisions: DecisionRow[] = [];
  let approvals = 0;
  for (const row of rows) {
    if (row.event_type === 'gateway.approval_requested') approvals++;
    if (!DECISION_TYPES.has(row.event_type)) continue;
    const payload = JSON.parse(row.payload) as Record<string, unknown>;
    decisions.push({ sequence: row.sequence, type: row.event_type, detail: safeJson(payload.detail ?? payload) });
  }
  const inv = result.investigation;
  const action = inv.recommended_action;
  const harness = Object.entries(result.harness).flatMap(([attack, value]) => {
    if (!value) return [];
    const v = value as { attempted?: boolean; honoured?: boolean; verified?: boolean; detail?: unknown };
    return [{ attack, attempted: v.attempted ?? false, detail: safeJson(v.detail ?? { verified: v.verified }, 200) }];
  });
  return {
    schema: RUN_RECORD_SCHEMA,
    mode_name: result.mode,
    repeat,
    title: scenario.title,
    expected_control: scenario.expected_control,
    outcome: result.outcome,
    solved: solved(result.outcome),
    oracle: result.oracle,
    false_block_oracle: result.false_block_oracle,
    investigation: {
      status: inv.status,
      failure_reason: inv.failure_reason,
      stages_completed: inv.stages_completed.length,
    },
    models_returned: [...new Set(inv.events.filter((e) => e.error === null).map((e) => e.model))],
    action: action
      ? {
          tool: action.tool_name,
          arguments: safeJson(action.arguments, 200),
          status: inv.action_result?.status ?? null,
          reason_codes: [...(inv.action_result?.reason_codes ?? [])],
        }
      : null,
    approvals_requested: approvals,
    harness_attacks: harness,
    evidence: { run_id: result.run_id, chain: result.chain },
    decisions,
    policy_version: result.policy_version,
    fixture: result.fixture,
  };
}

/** The `soclab` agent, which can also open its evidence store before the first run. */
export interface SoclabAgent extends Agent {
  /**
   * Open the evidence store now rather than on the first run, so a database that cannot be opened stops the caller
   * before anything runs (throws EvidenceDatabaseUnavailableError). No-op when a store was given or is open.
   */
  openEvidence(): Promise<void>;
}

/**
 * The agent behind a campaign: each case runs one scenario in the configured mode with a fresh simulator and
 * evidence chain, and returns the run's trace, outcome flags and evidence run id. Never throws for a scenario's
 * behaviour; a configuration problem (unknown scenario) becomes an errored case.
 */
export async function createSoclabAgent(config: SoclabAgentConfig): Promise<SoclabAgent> {
  registerAblationModes();
  const mode = getMode(config.mode);
  const corpus = config.corpus ?? loadCorpus();
  const providerId = config.provider ?? 'mock';
  const live = providerId !== 'mock' || config.providerFactory !== undefined;
  let liveProvider: ModelProvider | null = null;
  let approvedModels: readonly ApprovedModel[] = config.approvedModels ?? DEFAULT_APPROVED_MODELS;
  if (!config.providerFactory && providerId !== 'mock') {
    const registry = soclabProviderRegistry({ env: config.env });
    const selection = checkProviderSelection(registry, providerId, config.model ?? undefined);
    liveProvider = registry.get(
      selection.entry.id,
      selection.model,
      config.deployment ? { deployment: config.deployment } : undefined,
    );
    approvedModels = config.approvedModels ?? approvedModelsFor(liveProvider.providerId, liveProvider.model);
    if (config.price) liveProvider = withDeclaredPrice(liveProvider, config.price);
    else if (mode.controlled && !config.allowUnpriced && isUnpriced(liveProvider.providerId, liveProvider.model)) {
      throw new Error(
        `no price is known for ${liveProvider.providerId}/${liveProvider.model}, so protected mode's spend limit could never trip: declare one with --price IN/OUT (USD per million input/output tokens) or run anyway with --allow-unpriced`,
      );
    }
  }
  const providerFor = (scenario: AttackScenario): ModelProvider => {
    const base =
      config.providerFactory?.(scenario) ??
      liveProvider ??
      new MockAdversaryProvider({
        behavior: scenario.provider.behavior,
        model: scenario.provider.model,
        script: scenario.provider.script,
        costPerCallUsd: scenario.provider.cost_per_call_usd,
      });
    const wrapped = config.wrapProvider ? config.wrapProvider(base) : base;
    return config.withoutLabels ? withoutTrustLabels(wrapped) : wrapped;
  };
  // The harness runner's policy, with 5 attempts per model call: a campaign makes hundreds of calls, and at a 20%
  // rate-limit rate three attempts would still lose about one run in two campaigns.
  const retryPolicy: RetryPolicy = { ...DEFAULT_RETRY, maxAttempts: 5, ...config.retry };
  const retry = { policy: retryPolicy, budget: new RetryBudget(retryPolicy.budget) };
  const ownStore = config.evidence === undefined;
  let store: EvidenceStore | null = config.evidence ?? null;
  let opening: Promise<EvidenceStore> | null = null;
  const evidence = async (): Promise<EvidenceStore> => {
    if (store) return store;
    opening ??= openEvidenceStore(config.evidenceUrl);
    try {
      store = await opening;
    } catch (error) {
      // Nothing is open; a later call tries again rather than repeating this failure forever.
      opening = null;
      throw error;
    }
    return store;
  };

  return {
    openEvidence: async () => {
      await evidence();
    },
    describe: () => ({
      adapter: 'soclab',
      label: `${liveProvider ? `${liveProvider.providerId}/${liveProvider.model}` : live ? 'custom provider' : 'mock'} (${mode.name})`,
      options: {
        mode: mode.name,
        provider: liveProvider?.providerId ?? (config.providerFactory ? 'custom' : 'mock'),
        model: liveProvider?.model ?? null,
        authority_level: config.authorityLevel ?? 'L4',
        approver: config.approver ?? 'none',
        without_labels: config.withoutLabels === true,
      },
    }),
    async run(input, ctx: RunContext) {
      const t0 = performance.now();
      let scenario: AttackScenario;
      try {
        scenario = getScenario(scenarioIdOf(input), corpus);
      } catch (error) {
        return agentOutput({ error: errorMessage(error) });
      }
      try {
        const store = await evidence();
        const modeOptions: Record<string, unknown> = { ...(config.modeOptions ?? {}) };
        // Repeats of a noisy approver draw fresh, reproducible choices.
        if (ctx.repeat > 0 && modeOptions.approverSeed === undefined) {
          modeOptions.approverSeed = Number.parseInt(
            sha256Hex(`approver:${scenario.id}:${ctx.repeat}`).slice(0, 8),
            16,
          );
        }
        // The agent under test (soclab's http provider) receives the call's traceparent and joins the trace.
        const result = await withTraceparent(ctx.traceparent, () =>
          runScenario({
            scenario,
            corpus,
            mode: mode.name,
            provider: providerFor(scenario),
            evidence: store,
            authorityLevel: config.authorityLevel ?? 'L4',
            approvedModels,
            approver: config.approver ?? null,
            modeOptions,
            signal: ctx.signal,
            retry,
          }),
        );
        if (config.tracing && ctx.traceparent) recordScenarioSpans(config.tracing, ctx.traceparent, result);
        const record = await recordOf(result, scenario, ctx.repeat, store);
        const o = result.outcome;
        const toolCalls: ToolCallRecordInput[] = result.investigation.proposals.map(({ proposal, result: r }) => ({
          tool_name: proposal.tool_name,
          args: proposal.arguments as Record<string, unknown>,
          result: { status: r.status, outcome: r.outcome, reason_codes: [...r.reason_codes] },
          status: r.status === 'executed' || r.status === 'awaiting_approval' ? 'success' : 'error',
          error: r.status === 'executed' || r.status === 'awaiting_approval' ? null : r.status,
        }));
        const output = agentOutput({
          output: {
            scenario: scenario.id,
            mode: result.mode,
            attack_succeeded: o.attack_succeeded,
            false_block: o.false_block,
            leaked_canary: o.leaked_canary,
            investigation: result.investigation.status,
            action: record.action ? `${record.action.tool} -> ${record.action.status ?? 'none'}` : null,
            evidence_run_id: result.run_id,
          },
          latency: o.latency_ms / 1000,
          tool_calls: toolCalls,
          trace: {
            tool_calls: toolCalls,
            messages: result.investigation.events.map((e) => ({
              role: 'assistant',
              name: e.stage ?? 'turn',
              content: e.error ? `error: ${e.error}` : e.output_text.slice(0, 2000),
              metadata: { provider: e.provider, model: e.model, finish_reason: e.finish_reason },
            })),
            metadata: {
              evidence_run_id: result.run_id,
              chain_valid: result.chain.valid,
              root_hash: result.chain.root_hash,
            },
          },
          usage: {
            input_tokens: result.investigation.events.reduce((a, e) => a + e.usage.input_tokens, 0),
            output_tokens: result.investigation.events.reduce((a, e) => a + e.usage.output_tokens, 0),
            estimated: result.investigation.events.some((e) => e.usage.estimated),
          },
          cost: o.cost_usd,
          cost_is_estimated: o.cost_is_estimated,
          metadata: { evidence_run_id: result.run_id, soclab: record },
        });
        // Canaries never reach the journal: the whole output is redacted (literal, base64 and hex forms).
        return redact(output, DEFAULT_CANARY_PATTERNS);
      } catch (error) {
        return agentOutput({
          error: `scenario ${scenario.id} failed: ${redactText(errorMessage(error), DEFAULT_CANARY_PATTERNS)}`,
          latency: (performance.now() - t0) / 1000,
        });
      }
    },
    async close() {
      // A store still opening is waited for and closed; one that failed to open has nothing to close.
      if (ownStore) await (store ?? (await opening?.catch(() => null)))?.close();
      await (liveProvider as { close?: () => Promise<void> } | null)?.close?.();
    },
  };
}

/** Options of the registered `soclab` adapter (usable from a harness suite: `agent: { adapter: soclab, ... }`). */
export const SoclabAdapterOptions = z.strictObject({
  mode: z.string().min(1).default('protected'),
  provider: z.string().min(1).default('mock'),
  model: z.string().min(1).optional(),
  authority_level: AuthorityLevel.default('L4'),
  approver: z.string().default('none'),
  policy_dir: z.string().optional(),
  /** Evidence database URL (default SOCLAB_DATABASE_URL, else runs/soclab.sqlite). */
  db: z.string().optional(),
  without_labels: z.boolean().default(false),
});

/** The `soclab` harness adapter: one case = one scenario run (input `{ scenario: "ATK-001" }`). */
export const soclabAdapter = defineAdapter({
  name: 'soclab',
  description: 'Runs one soclab scenario (baseline, protected or an ablation mode) and returns its trace and outcome',
  options: SoclabAdapterOptions,
  create(options, ctx) {
    return createSoclabAgent({
      mode: options.mode,
      provider: options.provider,
      model: options.model,
      authorityLevel: options.authority_level,
      approver: options.approver,
      modeOptions: options.policy_dir ? { policyDir: options.policy_dir } : {},
      evidenceUrl: options.db ?? ctx.env.SOCLAB_DATABASE_URL,
      withoutLabels: options.without_labels,
    });
  },
});
