import { DEFAULT_CANARY_PATTERNS, redactText } from '../control/redaction.js';
import { gateAttributionSentence } from '../scoring/engine.js';
import { chainStatusText } from './chain-status.js';
import { decisionStatement, scorecardHeadline } from './components.js';
import {
  componentLabel,
  dateLabel,
  FAMILY_NAMES,
  fixed,
  fraction,
  humanize,
  inconclusiveText,
  LAB_NOTE,
  pct,
} from './format.js';
import type { Scorecard } from './scorecard.js';

const pad = (s: string, n: number): string => (s.length >= n ? s : s + ' '.repeat(n - s.length));

/** The plain-text executive summary (fixed layout, canary-redacted), rendered from a scorecard only. */
export function renderText(s: Scorecard): string {
  const a = s.assessment;
  const c = s.campaign;
  const lines: string[] = [];
  const out = (line = '') => lines.push(line);
  const headline = scorecardHeadline(s);
  // First line, so a campaign whose runs broke down can never be read as a clean pass.
  if (headline) out(`ERRORED: ${headline}`);
  out('Executive assurance summary');
  out('Should this agent get operational authority?');
  out('='.repeat(72));
  out(`Campaign       ${c.campaign_id}`);
  out(
    `Agent / model  ${c.provider}/${c.model}${c.models_returned?.some((m) => m !== c.model) ? ` (answered as ${c.models_returned.join(', ')})` : ''}${c.provider_validation ? ` (validation ${c.provider_validation})` : ''}`,
  );
  out(`Configuration  ${c.label}, tested at ${c.authority_level}, approver ${c.approver}, ${c.repeats} repeat(s)`);
  out(`Date           ${dateLabel(s.generated_at)}`);
  if (c.reproducible) {
    out(`Reproducible   seed ${c.reproducible.seed}, clock from ${c.reproducible.epoch}; run latency not reported`);
  }
  out(`Runs           ${a.sample_count} (${a.attack_runs} attack, ${a.benign_runs} benign)`);
  out();
  out(`Recommended authority level: ${a.authority.level} ${a.authority.label}`);
  out(decisionStatement(s).text);
  if (a.authority.next_level) out(`Why not ${a.authority.next_level}: ${a.authority.binding_detail}.`);
  if (s.robustness) {
    const r = s.robustness;
    const w = r.adaptive.success_within_budget;
    out(
      `Robustness     static corpus ${pct(r.static_corpus.rate)} attack success (${r.static_corpus.successes} of ${r.static_corpus.n}); adaptive attacker ${pct(w.rate)} of ${w.n} searches within ${r.adaptive.budget} tries (95% CI ${pct(w.ci95[0])}-${pct(w.ci95[1])}) against ${r.adaptive.mode} at ${r.adaptive.authority_level}`,
    );
    out(`               ${r.rule}`);
  }
  out();
  out(`Composite        ${fixed(a.composite, 3)}`);
  out(
    `Attack success   ${pct(a.attack_success.value)} (${a.attack_success.numerator} of ${a.attack_success.denominator}; 95% CI ${pct(a.attack_success.ci95[0])}-${pct(a.attack_success.ci95[1])})`,
  );
  out(
    `False blocks     ${a.false_block.denominator === 0 ? 'no benign data' : `${pct(a.false_block.value)} (${a.false_block.numerator} of ${a.false_block.denominator})`}`,
  );
  out(
    `Benign utility   ${pct(a.utility.benign_utility.value)} (${a.utility.benign_utility.numerator} of ${a.utility.benign_utility.denominator})`,
  );
  if (s.comparison) {
    const p = s.comparison.paired;
    out(
      `Control change   attack success ${pct(p.control_change.baseline_attack_success)} -> ${pct(p.control_change.protected_attack_success)}, composite ${fixed(p.control_change.baseline_composite, 3)} -> ${fixed(p.control_change.protected_composite, 3)}, McNemar p ${p.mcnemar_p < 0.0001 ? p.mcnemar_p.toExponential(2) : p.mcnemar_p.toFixed(4)}`,
    );
    if (inconclusiveText(p.inconclusive_scenarios))
      out(`                 ${inconclusiveText(p.inconclusive_scenarios)}`);
  }
  const l = a.ledgers;
  if (l) {
    const r = (x: { runs: number; runs_total: number; scenarios: number; ci95: [number, number] }, side: 0 | 1) =>
      `${x.runs} of ${x.runs_total} runs over ${x.scenarios} scenarios (${side === 0 ? 'lower' : 'upper'} bound ${pct(x.ci95[side])})`;
    out();
    out('Competence');
    out(`  completed        ${r(l.competence.completed, 0)}`);
    out(`  grounded         ${r(l.competence.grounded, 0)}`);
    out(`  correct (clean)  ${r(l.competence.correct_recommendation_clean, 0)}`);
    out(`  correct (attack) ${r(l.competence.correct_recommendation_attacked, 0)}`);
    out('Intrinsic safety (what the agent attempted, stopped or not)');
    out(`  attempted harm   ${r(l.intrinsic.attempted_harm, 1)}`);
    for (const x of l.intrinsic.attempts.slice(0, 8)) out(`    ${x}`);
    if (l.intrinsic.attempts.length > 8) out(`    and ${l.intrinsic.attempts.length - 8} more (technical report)`);
    out('System outcome');
    out(`  attack success   ${r(l.system.attack_success, 1)}`);
    out(
      `  leaks            ${l.system.runs_with_leak} run(s): ${l.system.leaks_by_attribution.agent} owed to the agent, ${l.system.leaks_by_attribution.configuration} to the configuration`,
    );
    if (a.repeats && a.repeats.scenarios_with_repeats > 0) out(`Repeats: ${a.repeats.note}.`);
  }
  out();
  out('Mandatory gates');
  for (const g of a.gates) {
    out(`  ${pad(humanize(g.gate), 28)} ${g.passed ? 'pass' : 'FAIL'}`);
    if (!g.passed && g.failures.some((f) => f.attribution)) out(`    ${gateAttributionSentence(g)}`);
  }
  out();
  out('Score families');
  for (const f of a.families) {
    out(`  ${pad(FAMILY_NAMES[f.family], 26)} weight ${fixed(f.weight, 2)}  score ${fixed(f.value, 3)}`);
    out(
      `    ${f.components
        .filter((x) => x.included)
        .map((x) => `${componentLabel(x.name)} ${fraction(x.numerator, x.denominator)}`)
        .join('; ')}`,
    );
  }
  out();
  out('Attack results by difficulty');
  for (const t of a.tiers) out(`  ${pad(t.tier, 8)} ${t.resisted} of ${t.total} resisted in every run`);
  out(`  coverage ${a.coverage.numerator} of ${a.coverage.denominator} attack scenarios run`);
  if (s.ablation) {
    out();
    out('Protected minus one control');
    for (const x of s.ablation.controls) {
      out(
        x.measured
          ? `  ${pad(x.control, 10)} attack success ${x.attack_success ? pct(x.attack_success.value) : '-'}, gates ${x.gate_failures.join(', ') || 'none'}, needed by ${x.attributed.join(', ') || 'none'}`
          : `  ${pad(x.control, 10)} not measured: ${x.note ?? ''}`,
      );
    }
  }
  out();
  out('Evidence chain');
  out(`  ${chainStatusText(s.chains)}`);
  out();
  out(
    `Cost: $${a.economics.cost_usd_total.toFixed(4)} (${a.economics.cost_is_estimated ? 'includes estimates' : 'provider reported'})${a.economics.cost_unknown_turns > 0 ? `; cost unknown for ${a.economics.cost_unknown_turns} turns (no price for the model)` : ''}`,
  );
  out();
  out('Limitations');
  for (const l of [...a.limitations, LAB_NOTE]) out(`  - ${l}`);
  out();
  out(
    `Versions: soclab ${s.generator.version}, scorecard ${s.schema_version}, profile ${a.profile.name} ${a.profile.version}, policy ${c.policy_version}, fixture ${c.fixture.name} ${c.fixture.version}, prompt ${c.prompt_version}`,
  );
  out('Synthetic data and simulated actions only.');
  return redactText(`${lines.join('\n')}\n`, DEFAULT_CANARY_PATTERNS);
}

/**
 * The console summary line: `baseline : attack success 87%, composite 0.58, gates [...], authority L1 (held by
 * gate_failures)`. The rule that held the level back is named so a reader sees why without opening the report.
 */
export function summaryLine(s: Scorecard, width = 9): string {
  const a = s.assessment;
  const gates = a.gate_failures.length === 0 ? 'none' : `[${a.gate_failures.join(', ')}]`;
  const held = a.authority.next_level === null ? '' : ` (held by ${a.authority.binding_rule})`;
  return `${pad(s.campaign.label, width)}: attack success ${pct(a.attack_success.value, 0)}, composite ${fixed(a.composite, 2)}, gates ${gates}, authority ${a.authority.level}${held}`;
}
