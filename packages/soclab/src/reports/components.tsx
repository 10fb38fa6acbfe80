/** @jsxRuntime automatic */
/** @jsxImportSource react */
import type { ReactNode } from 'react';
import { AUTHORITY_LABELS } from '../contracts/enums.js';
import { dateLabel, FAMILY_NAMES, fixed, fraction, humanize, LAB_NOTE, pct, proportionText } from './format.js';
import type { Scorecard } from './scorecard.js';

/** Building blocks shared by the executive report, the technical report and the one-page summary. */

export type Props = { s: Scorecard };

/** The decision statement, in the same words everywhere. */
export function decisionStatement(s: Scorecard): { ok: boolean; text: string } {
  const a = s.assessment;
  if (a.gate_failures.length > 0) {
    return {
      ok: false,
      text: `Mandatory gate failed: ${a.gate_failures.map(humanize).join(', ')}. The composite score does not matter until this is fixed.`,
    };
  }
  if (a.critical_failures.length > 0) {
    return {
      ok: false,
      text: `Critical regression: attacks succeeded in protected mode for ${a.critical_failures.join(', ')}.`,
    };
  }
  return { ok: true, text: 'No mandatory gate failed and no attack succeeded against this configuration.' };
}

export function Meta({ s }: Props) {
  const c = s.campaign;
  const items: [string, ReactNode][] = [
    ['Agent / model', `${c.provider}/${c.model}`],
    ['Configuration', c.label],
    ['Runs', `${s.assessment.sample_count} (${c.repeats} repeat${c.repeats === 1 ? '' : 's'})`],
    ['Generated', dateLabel(s.generated_at)],
    ['Campaign', <code key="id">{c.campaign_id}</code>],
    ['Authority tested at', `${c.authority_level} ${AUTHORITY_LABELS[c.authority_level]}`],
    ['Approver', c.approver],
    ['Policy', c.policy_version],
  ];
  return (
    <div className="meta">
      {items.map(([k, v]) => (
        <div key={k}>
          <span>{k}</span>
          {v}
        </div>
      ))}
    </div>
  );
}

export function DecisionBox({ s }: Props) {
  const a = s.assessment;
  const verdict = decisionStatement(s);
  const next = a.authority.next_level;
  return (
    <section className="decision" aria-label="Recommendation">
      <div>
        <div className="level">{a.authority.level}</div>
        <div className="level-label">{a.authority.label}</div>
      </div>
      <div>
        <div>
          Recommended authority level: <b>{`${a.authority.level} ${a.authority.label}`}</b>
        </div>
        <div className={verdict.ok ? 'verdict-ok' : 'verdict-bad'}>{verdict.text}</div>
        <div className="binding">
          {next
            ? `Why not ${next}: ${a.authority.binding_detail} (rule: ${humanize(a.authority.binding_rule)}).`
            : 'Every requirement of every level is met.'}
        </div>
      </div>
    </section>
  );
}

export function Kpis({ s }: Props) {
  const a = s.assessment;
  const items: [string, string, string][] = [
    ['Composite', fixed(a.composite, 2), `profile ${a.profile.name} ${a.profile.version}`],
    [
      'Attack success',
      pct(a.attack_success.value),
      `${a.attack_success.numerator} of ${a.attack_success.denominator} attack runs; 95% CI ${pct(a.attack_success.ci95[0])}-${pct(a.attack_success.ci95[1])}`,
    ],
    [
      'False blocks',
      a.false_block.denominator === 0 ? 'n/a' : pct(a.false_block.value),
      a.false_block.denominator === 0
        ? 'no benign control ran'
        : `${a.false_block.numerator} of ${a.false_block.denominator} benign actions denied`,
    ],
    [
      'Benign utility',
      a.utility.benign_utility.denominator === 0 ? 'n/a' : pct(a.utility.benign_utility.value),
      `${a.utility.benign_utility.numerator} of ${a.utility.benign_utility.denominator} benign controls solved`,
    ],
  ];
  return (
    <div className="kpis">
      {items.map(([k, v, note]) => (
        <div className="kpi" key={k}>
          <span>{k}</span>
          <b>{v}</b>
          <span>{note}</span>
        </div>
      ))}
    </div>
  );
}

export function GatesTable({ s, details = false }: Props & { details?: boolean }) {
  return (
    <table>
      <thead>
        <tr>
          <th>Mandatory gate</th>
          <th>Result</th>
          <th>{details ? 'Failing runs' : 'What it checks'}</th>
        </tr>
      </thead>
      <tbody>
        {s.assessment.gates.map((g) => (
          <tr key={g.gate}>
            <td>{humanize(g.gate)}</td>
            <td className={g.passed ? 'pass' : 'fail'}>{g.passed ? 'pass' : 'FAIL'}</td>
            <td>
              {details && !g.passed
                ? g.failures.map((f) => `${f.scenario_id}#${f.repeat}: ${f.why}`).join('; ')
                : g.passed || !details
                  ? g.description
                  : ''}
              {!details && !g.passed ? ` (${g.failures.length} run${g.failures.length === 1 ? '' : 's'})` : ''}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function FamiliesTable({ s, components = false }: Props & { components?: boolean }) {
  return (
    <table>
      <thead>
        <tr>
          <th>Family</th>
          <th className="num">Weight</th>
          <th className="num">Score</th>
          <th className="num">Contribution</th>
          {components ? <th>Components (numerator/denominator = value)</th> : null}
        </tr>
      </thead>
      <tbody>
        {s.assessment.families.map((f) => (
          <tr key={f.family}>
            <td>{FAMILY_NAMES[f.family]}</td>
            <td className="num">{fixed(f.weight, 2)}</td>
            <td className="num">{fixed(f.value, 3)}</td>
            <td className="num">{fixed(f.contribution, 3)}</td>
            {components ? (
              <td>
                {f.components.map((c) => (
                  <div key={c.name}>
                    {humanize(c.name)} {fraction(c.numerator, c.denominator)} = {fixed(c.value, 3)}
                    {c.included ? '' : ` (not counted: ${c.note ?? 'no data'})`}
                  </div>
                ))}
              </td>
            ) : null}
          </tr>
        ))}
        <tr>
          <td>
            <b>Composite</b>
          </td>
          <td className="num">1.00</td>
          <td className="num">
            <b>{fixed(s.assessment.composite, 3)}</b>
          </td>
          <td className="num">{fixed(s.assessment.composite, 3)}</td>
          {components ? <td className="muted">sum of weight x family score</td> : null}
        </tr>
      </tbody>
    </table>
  );
}

export function TiersTable({ s }: Props) {
  const a = s.assessment;
  return (
    <table>
      <thead>
        <tr>
          <th>Difficulty</th>
          <th className="num">Resisted in every run</th>
          <th className="num">Share</th>
        </tr>
      </thead>
      <tbody>
        {a.tiers.map((t) => (
          <tr key={t.tier}>
            <td>{t.tier}</td>
            <td className="num">{`${t.resisted} of ${t.total}`}</td>
            <td className="num">{pct(t.value)}</td>
          </tr>
        ))}
        <tr>
          <td>Coverage</td>
          <td className="num">{`${a.coverage.numerator} of ${a.coverage.denominator} scenarios run`}</td>
          <td className="num">{pct(a.coverage.value)}</td>
        </tr>
      </tbody>
    </table>
  );
}

export function ComparisonTable({ s }: Props) {
  return (
    <table>
      <thead>
        <tr>
          <th>Configuration</th>
          <th className="num">Composite</th>
          <th className="num">Attack success (95% CI)</th>
          <th className="num">False blocks</th>
          <th>Gates failed</th>
          <th>Authority</th>
        </tr>
      </thead>
      <tbody>
        {s.comparison_rows.map((r) => (
          <tr key={r.label}>
            <td>{r.label}</td>
            <td className="num">{fixed(r.composite, 3)}</td>
            <td className="num">{`${pct(r.attack_success_rate)} (${pct(r.ci95[0])}-${pct(r.ci95[1])})`}</td>
            <td className="num">{pct(r.false_block_rate)}</td>
            <td>{r.gate_failures.length === 0 ? 'none' : r.gate_failures.map(humanize).join(', ')}</td>
            <td>{r.authority}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ControlChange({ s }: Props) {
  const c = s.comparison;
  if (!c) return null;
  const p = c.paired;
  const u = p.utility_cost;
  return (
    <>
      <table>
        <thead>
          <tr>
            <th />
            <th className="num">Baseline (weak controls)</th>
            <th className="num">Protected</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <td>Attack success</td>
            <td className="num">{proportionText(p.baseline_attack_success)}</td>
            <td className="num">{proportionText(p.protected_attack_success)}</td>
          </tr>
          <tr>
            <td>Composite</td>
            <td className="num">{fixed(p.control_change.baseline_composite, 3)}</td>
            <td className="num">{fixed(p.control_change.protected_composite, 3)}</td>
          </tr>
          <tr>
            <td>Authority</td>
            <td className="num">{c.baseline_assessment.authority.level}</td>
            <td className="num">{s.assessment.authority.level}</td>
          </tr>
          <tr>
            <td>Benign utility</td>
            <td className="num">{proportionText(u.baseline_benign_utility)}</td>
            <td className="num">{proportionText(u.protected_benign_utility)}</td>
          </tr>
          <tr>
            <td>Approvals requested per run</td>
            <td className="num">{fixed(u.baseline_approvals_per_run, 2)}</td>
            <td className="num">{fixed(u.protected_approvals_per_run, 2)}</td>
          </tr>
        </tbody>
      </table>
      <p>
        {`Paired on ${p.attack_pairs} identical attack runs: the controls stopped ${p.stopped} attack${p.stopped === 1 ? '' : 's'} that succeeded without them and let through ${p.introduced} that failed without them; exact McNemar p = ${p.mcnemar_p < 0.0001 ? p.mcnemar_p.toExponential(2) : p.mcnemar_p.toFixed(4)}${p.significant_at_5pct ? ' (significant at 5%)' : ' (not significant at 5%)'}. Utility cost: benign utility ${u.benign_utility_difference >= 0 ? '+' : ''}${pct(u.benign_utility_difference)}, false-block rate ${pct(u.protected_false_block_rate.value)}.`}
      </p>
    </>
  );
}

export function AblationTable({ s }: Props) {
  const ab = s.ablation;
  if (!ab) return null;
  return (
    <>
      <table>
        <thead>
          <tr>
            <th>Protected without</th>
            <th className="num">Attack success</th>
            <th className="num">Runs leaking</th>
            <th>Gates failed</th>
            <th>Authority</th>
            <th>Attacks that need this control</th>
          </tr>
        </thead>
        <tbody>
          {ab.controls.map((c) => (
            <tr key={c.control}>
              <td>
                <b>{c.control}</b> <span className="muted">{c.description}</span>
              </td>
              {c.measured ? (
                <>
                  <td className="num">{c.attack_success ? proportionText(c.attack_success) : '-'}</td>
                  <td className="num">{c.runs_with_leak ? pct(c.runs_with_leak.value) : '-'}</td>
                  <td>{c.gate_failures.length === 0 ? 'none' : c.gate_failures.map(humanize).join(', ')}</td>
                  <td>{c.authority ?? '-'}</td>
                  <td>{c.attributed.length === 0 ? 'none' : c.attributed.join(', ')}</td>
                </>
              ) : (
                <td colSpan={5} className="muted">
                  {`not measured: ${c.note ?? ''}`}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">
        {ab.redundant.length === 0
          ? 'Every stopped attack depends on at least one single control.'
          : `Stopped by more than one layer (no single removed control lets them through): ${ab.redundant.join(', ')}.`}
      </p>
    </>
  );
}

export function Limitations({ s }: Props) {
  return (
    <ul className="limitations">
      {s.assessment.limitations.map((l) => (
        <li key={l}>{l}</li>
      ))}
      <li>{LAB_NOTE}</li>
    </ul>
  );
}

export function Footer({ s }: Props) {
  const c = s.campaign;
  return (
    <footer>
      {`${s.generator.name} ${s.generator.version} · scorecard ${s.schema_version} · scoring profile ${s.assessment.profile.name} ${s.assessment.profile.version} · policy ${c.policy_version} · fixture ${c.fixture.name} ${c.fixture.version} · prompt ${c.prompt_version} · generated ${dateLabel(s.generated_at)} · synthetic data and simulated actions only`}
    </footer>
  );
}

/** `first 12 root hashes ... and N more` */
export function chainHeads(s: Scorecard, limit = 12): { shown: string[]; more: number } {
  const roots = s.chains.runs.map((r) => `${r.scenario_id}#${r.repeat} ${r.root_hash ?? 'none'}`);
  return { shown: roots.slice(0, limit), more: Math.max(0, roots.length - limit) };
}
