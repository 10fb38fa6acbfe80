import { errorMessage } from '@aeh/harness/errors';
import { type Command, Option } from '@commander-js/extra-typings';
import { CliError, c, EXIT, printJson, safeText } from '../common.js';

/** Scenario used when `--scenario` is not given: the grounded investigation of the incident with no attack. */
export const CLEAN_SCENARIO = 'BEN-001';

/** `soclab investigate`: run one scenario end to end and print the investigation. */
export function register(program: Command): void {
  program
    .command('investigate')
    .description(
      'run the seven-stage investigation once (one scenario), record it on the evidence chain, print it; exit 4 if the run errored (provider or transport failure after retries)',
    )
    .option('--mode <mode>', 'baseline (weak controls) or protected (control plane)', 'baseline')
    .option('--provider <id>', 'model provider', 'mock')
    .option('--model <label>', "model label (default: the scenario's)")
    .option('--scenario <id>', `scenario to run (default ${CLEAN_SCENARIO}, the clean investigation)`)
    .addOption(
      new Option('--behavior <behavior>', "override the mock's behaviour").choices([
        'grounded',
        'gullible',
        'cautious',
      ] as const),
    )
    .option('--approver <model>', 'approver simulation for protected mode (none, ideal, rubber_stamp, noisy:P)')
    .option('--db <url>', 'evidence database (default: SOCLAB_DATABASE_URL or runs/soclab.sqlite)')
    .option('--fail-on-attack', "exit 1 when the scenario's attack succeeds (or a benign action is falsely blocked)")
    .option('--json', 'machine-readable output (canaries redacted)')
    .action(async (opts) => {
      await import('../../modes/builtin.js');
      const { getMode } = await import('../../modes/registry.js');
      const { loadCorpus, getScenario, ScenarioLoadError } = await import('../../scenarios/loader.js');
      const { runScenario } = await import('../../scenarios/runner.js');
      const { MockAdversaryProvider } = await import('../../providers/mock.js');
      const { openEvidenceStore } = await import('../../evidence/store.js');

      try {
        getMode(opts.mode);
      } catch (error) {
        throw new CliError(errorMessage(error), EXIT.usage);
      }
      // Unknown, unapproved or unconfigured providers are rejected before anything runs (exit 2).
      const { approvedModelsFor, checkProviderSelection, soclabProviderRegistry } = await import(
        '../../providers/registry.js'
      );
      const registry = soclabProviderRegistry();
      let selection: ReturnType<typeof checkProviderSelection>;
      try {
        selection = checkProviderSelection(registry, opts.provider, opts.model);
      } catch (error) {
        throw new CliError(errorMessage(error), EXIT.usage);
      }
      const live = selection.entry.id !== 'mock';
      let corpus: ReturnType<typeof loadCorpus>;
      try {
        corpus = loadCorpus();
      } catch (error) {
        if (error instanceof ScenarioLoadError) throw new CliError(`invalid scenarios:\n${error.message}`, EXIT.usage);
        throw error;
      }
      let scenario: ReturnType<typeof getScenario>;
      try {
        scenario = getScenario(opts.scenario ?? CLEAN_SCENARIO, corpus);
      } catch (error) {
        throw new CliError(errorMessage(error), EXIT.usage);
      }
      const { needsMock } = await import('../../contracts/scenarios.js');
      if (live && needsMock(scenario)) {
        throw new CliError(
          `scenario ${scenario.id} scripts the model's replies, so it runs only with the mock provider; live providers run the scenarios whose attack lives in the fixture data (see: soclab scenarios)`,
          EXIT.usage,
        );
      }
      let provider: import('@aeh/models').ModelProvider;
      try {
        provider = live
          ? registry.get(selection.entry.id, selection.model)
          : new MockAdversaryProvider({
              behavior: opts.behavior ?? scenario.provider.behavior,
              model: opts.model ?? scenario.provider.model,
              script: scenario.provider.script,
              costPerCallUsd: scenario.provider.cost_per_call_usd,
            });
      } catch (error) {
        throw new CliError(errorMessage(error), EXIT.usage);
      }
      const store = await openEvidenceStore(opts.db);
      let result: Awaited<ReturnType<typeof runScenario>>;
      let decisions: string[] = [];
      let decisionRecords: unknown[] | undefined;
      const { DEFAULT_RETRY, RetryBudget } = await import('@aeh/harness/retry');
      const retryPolicy = { ...DEFAULT_RETRY, maxAttempts: 5 };
      try {
        result = await runScenario({
          retry: { policy: retryPolicy, budget: new RetryBudget(retryPolicy.budget) },
          scenario,
          corpus,
          mode: opts.mode,
          provider,
          evidence: store,
          approver: opts.approver ?? null,
          approvedModels: live ? approvedModelsFor(provider.providerId, provider.model) : undefined,
        });
        if (result.mode !== 'baseline') {
          const { controlDecisionLines, controlDecisions } = await import('../../control/decision-log.js');
          const events = await store.events(result.run_id);
          decisions = controlDecisionLines(events);
          decisionRecords = controlDecisions(events);
        }
      } finally {
        await store.close();
        await (provider as { close?: () => Promise<void> }).close?.();
      }
      if (opts.json) {
        printJson({
          run_id: result.run_id,
          scenario: { id: result.scenario_id, version: result.scenario_version, title: scenario.title },
          mode: result.mode,
          provider: result.provider,
          model: result.model,
          fixture: result.fixture,
          policy_version: result.policy_version,
          decisions: decisionRecords,
          oracle: result.oracle,
          false_block_oracle: result.false_block_oracle,
          outcome: result.outcome,
          leaks: result.leaks,
          chain: result.chain,
          evidence_store: store.location,
          harness: result.harness,
          final_state: result.final_state,
          investigation: result.investigation,
        });
      } else {
        printHuman(result, scenario.title, store.location);
        if (decisions.length > 0) {
          process.stdout.write(`\n${c.bold(`Control plane (policy ${result.policy_version})`)}\n`);
          for (const line of decisions) process.stdout.write(`  ${safeText(line)}\n`);
        }
      }
      const bad = result.outcome.attack_succeeded || result.outcome.false_block;
      if (opts.failOnAttack && bad) process.exitCode = EXIT.gate;
      if (result.investigation.status === 'errored') process.exitCode = EXIT.errored;
    });
}

type RunResult = Awaited<ReturnType<typeof import('../../scenarios/runner.js')['runScenario']>>;

const call = (tool: string, args: Readonly<Record<string, unknown>>): string => {
  const text = Object.entries(args)
    .map(
      ([k, v]) =>
        `${k}=${typeof v === 'string' ? (v.length > 60 ? `${v.slice(0, 57)}…(${v.length})` : v) : JSON.stringify(v)}`,
    )
    .join(', ');
  return `${tool}(${text})`;
};

function printHuman(r: RunResult, title: string, location: string): void {
  const out = (line = '') => process.stdout.write(`${safeText(line)}\n`);
  const inv = r.investigation;
  out(c.bold(`${r.scenario_id} ${title}`));
  out(
    `run ${r.run_id}  mode ${r.mode}  model ${r.provider}/${r.model}  fixture ${r.fixture.name} ${r.fixture.version}  policy ${r.policy_version}`,
  );
  out();
  const byStage = new Map<string, (typeof inv.proposals)[number]>();
  for (const p of inv.proposals) {
    const [, stage = 'propose_action'] = /^collect evidence at ([a-z_]+)$/.exec(p.proposal.rationale) ?? [];
    byStage.set(stage, p);
  }
  const evidenceFor = new Map<string, string>();
  const ids = inv.evidence.map((e) => e.evidence_id).filter((id) => id !== 'alert');
  for (const id of ids) evidenceFor.set(id.split(':')[0] ?? id, id);
  inv.events.forEach((e, i) => {
    const stage = e.stage ?? '?';
    let line = `${String(i + 1).padStart(2)}. ${stage.padEnd(23)}`;
    if (e.error) {
      out(`${line}${c.red(`model error: ${e.error}`)}`);
      return;
    }
    if (stage === 'form_finding') {
      const f = inv.finding;
      out(`${line}${f ? `finding with ${f.claims.length} claims` : c.red('no valid finding')}`);
      return;
    }
    const p = byStage.get(stage);
    if (!p) {
      out(`${line}${c.red('reply rejected')}`);
      return;
    }
    line += call(p.proposal.tool_name, p.proposal.arguments);
    const res = p.result;
    const status = res.status === 'executed' ? c.green(res.status) : c.yellow(res.status);
    const reasons = res.reason_codes.length > 0 ? ` [${res.reason_codes.join(', ')}]` : '';
    const decided = res.outcome ? ` policy ${res.outcome}` : '';
    const ev = res.output ? ` -> ${evidenceFor.get(p.proposal.tool_name) ?? 'evidence'}` : '';
    const receipt = res.receipt ? ` receipt ${String(res.receipt.execution_id)} (simulation)` : '';
    out(`${line}  ${status}${decided}${reasons}${ev}${receipt}`);
  });
  out();
  if (inv.finding) {
    out(c.bold('Finding'));
    out(`  ${inv.finding.summary}`);
    for (const claim of inv.finding.claims) {
      const mark = claim.supported ? c.green('supported  ') : c.red('UNSUPPORTED');
      out(`  ${mark} ${claim.text} [${claim.evidence_ids.join(', ') || 'no citation'}]`);
    }
    out(`  techniques ${inv.finding.techniques.join(', ') || '-'}; confidence ${inv.finding.confidence}`);
    out();
  }
  if (inv.recommended_action) {
    const a = inv.recommended_action;
    out(
      `${c.bold('Recommended action')} ${call(a.tool_name, a.arguments)} citing ${a.evidence_refs.length} evidence refs`,
    );
    out(
      `  result: ${inv.action_result?.status ?? '-'}${inv.action_result?.error ? ` (${inv.action_result.error})` : ''}`,
    );
  }
  out(`${c.bold('Status')} ${inv.status}${inv.failure_reason ? ` - ${inv.failure_reason}` : ''}`);
  if (r.oracle) {
    // An investigation that did not complete kept nothing out (profile 2.0.0: inaction is not resistance).
    const verdict = r.outcome.attack_succeeded
      ? c.red('ATTACK SUCCEEDED')
      : inv.status === 'complete'
        ? c.green('attack resisted')
        : c.yellow(`not resisted (the investigation ended ${inv.status})`);
    out(`${c.bold('Oracle')} ${r.oracle.name} = ${r.oracle.value} -> ${verdict}`);
  }
  if (r.false_block_oracle) {
    const fb = r.false_block_oracle;
    out(
      `${c.bold('False block')} ${fb.name} = ${fb.evaluated ? String(fb.value) : 'not evaluated (no control plane in this mode)'}`,
    );
  }
  const sinks = [...new Set(r.leaks.map((l) => `${l.sink}/${l.encoding}`))];
  out(
    `${c.bold('Canary leakage')} ${r.leaks.length === 0 ? 'none' : `${r.leaks.length} finding(s): ${sinks.join(', ')}`}`,
  );
  out(
    `${c.bold('Evidence')} ${r.chain.length} events, chain ${r.chain.valid ? c.green('valid') : c.red(`INVALID at ${r.chain.first_invalid_sequence}: ${r.chain.reason}`)}, root ${r.chain.root_hash ?? '-'}`,
  );
  out(`  store ${location}; verify with: soclab verify-chain ${r.run_id}`);
}
