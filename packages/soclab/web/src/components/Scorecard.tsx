import { Chips, Interval, LevelBadge, Pill, Section } from '../components/ui';
import { amount, humanize, num, pct } from '../format';
import type { Scorecard } from '../types';

type Prop = { s: Scorecard };

function Decision({ s }: Prop) {
  const a = s.assessment;
  const failed = a.gates.filter((g) => !g.passed);
  return (
    <section className="card decision" data-testid="scorecard-level">
      <LevelBadge level={a.authority.level} label={a.authority.label} large />
      <div>
        <h2>
          Recommended authority: {a.authority.level} ({a.authority.label})
        </h2>
        <p>
          Bound by <strong>{humanize(a.authority.binding_rule)}</strong>: {a.authority.binding_detail}
        </p>
        <p>
          {failed.length === 0 ? (
            <Pill tone="good">all {a.gates.length} mandatory gates pass</Pill>
          ) : (
            <>
              <Pill tone="bad">
                {failed.length} of {a.gates.length} gates fail
              </Pill>{' '}
              <Chips items={failed.map((g) => humanize(g.gate))} tone="bad" />
            </>
          )}{' '}
          {a.critical_failures.length > 0 ? (
            <Pill tone="bad">{a.critical_failures.length} critical failures</Pill>
          ) : null}
        </p>
      </div>
    </section>
  );
}

/** First line of the view when runs errored or failed: the rest must never read as a clean pass. */
function RunsBanner({ s }: Prop) {
  const headline = s.assessment.errored?.headline;
  return headline ? (
    <p className="card banner-bad" role="alert" data-testid="errored-banner">
      {headline}
    </p>
  ) : null;
}

type Rate = { runs: number; runs_total: number; scenarios: number; value: number; ci95: [number, number] };
const rateText = (r: Rate, side: 0 | 1) =>
  r.runs_total === 0
    ? 'no runs'
    : `${r.runs} of ${r.runs_total} runs over ${r.scenarios} scenarios (${pct(r.value)}; ${side === 0 ? 'lower' : 'upper'} bound ${pct(r.ci95[side])})`;

/** The three ledgers, kept apart: competence, what the agent attempted, and what happened end to end. */
function Ledgers({ s }: Prop) {
  const l = s.assessment.ledgers;
  if (!l) return null;
  const rows: [string, string, string][] = [
    ['competence', 'completed investigations', rateText(l.competence.completed, 0)],
    ['competence', 'grounded findings', rateText(l.competence.grounded, 0)],
    ['competence', 'correct recommendation (clean)', rateText(l.competence.correct_recommendation_clean, 0)],
    ['competence', 'correct recommendation (attacked)', rateText(l.competence.correct_recommendation_attacked, 0)],
    ['intrinsic safety', 'runs in which the agent attempted harm', rateText(l.intrinsic.attempted_harm, 1)],
    ['system outcome', 'attack success (end to end)', rateText(l.system.attack_success, 1)],
    [
      'system outcome',
      'runs with a persisted canary',
      `${l.system.runs_with_leak} (${l.system.leaks_by_attribution.agent} owed to the agent, ${l.system.leaks_by_attribution.configuration} to the configuration)`,
    ],
  ];
  return (
    <Section title="Competence, intrinsic safety, system outcome">
      <table className="grid" data-testid="ledgers">
        <thead>
          <tr>
            <th>ledger</th>
            <th>measure</th>
            <th>evidence</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([ledger, what, value]) => (
            <tr key={what}>
              <td>{ledger}</td>
              <td>{what}</td>
              <td>{value}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {l.intrinsic.attempts.length > 0 ? (
        <ul data-testid="attempts">
          {l.intrinsic.attempts.slice(0, 10).map((x) => (
            <li key={x}>{x}</li>
          ))}
          {l.intrinsic.attempts.length > 10 ? <li>and {l.intrinsic.attempts.length - 10} more</li> : null}
        </ul>
      ) : null}
      {s.assessment.repeats && s.assessment.repeats.scenarios_with_repeats > 0 ? (
        <p className="muted">Repeats: {s.assessment.repeats.note}.</p>
      ) : null}
    </Section>
  );
}

function Gates({ s }: Prop) {
  return (
    <Section title="Mandatory gates">
      <table className="grid" data-testid="gates">
        <thead>
          <tr>
            <th>gate</th>
            <th>verdict</th>
            <th>what it checks</th>
            <th>failing runs</th>
          </tr>
        </thead>
        <tbody>
          {s.assessment.gates.map((g) => (
            <tr key={g.gate}>
              <td>{humanize(g.gate)}</td>
              <td>{g.passed ? <Pill tone="good">pass</Pill> : <Pill tone="bad">fail</Pill>}</td>
              <td>{g.description}</td>
              <td>
                {g.failures.length === 0
                  ? '–'
                  : g.failures
                      .slice(0, 8)
                      .map((f) => `${f.scenario_id}#${f.repeat}${f.attribution ? ` (${f.attribution})` : ''}`)
                      .join(', ') + (g.failures.length > 8 ? ` and ${g.failures.length - 8} more` : '')}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

function Families({ s }: Prop) {
  return (
    <Section title={`Score families (composite ${num(s.assessment.composite, 3)})`}>
      <table className="grid" data-testid="families">
        <thead>
          <tr>
            <th>family</th>
            <th>weight</th>
            <th>score</th>
            <th>contribution</th>
            <th>components (numerator / denominator)</th>
          </tr>
        </thead>
        <tbody>
          {s.assessment.families.map((f) => (
            <tr key={f.family}>
              <td>{humanize(f.family)}</td>
              <td>{num(f.weight, 2)}</td>
              <td>
                <span className="bar">
                  <span style={{ width: `${f.value * 100}%` }} />
                </span>{' '}
                {num(f.value, 3)}
              </td>
              <td>{num(f.contribution, 3)}</td>
              <td className="small">
                {f.components.map((c) => (
                  <div key={c.name} className={c.included ? undefined : 'muted'}>
                    {humanize(c.name)}: {amount(c.numerator)} / {amount(c.denominator)} = {num(c.value, 3)}
                    {c.included ? '' : ' (not counted)'}
                    {c.note ? <span className="muted"> · {c.note}</span> : null}
                  </div>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

function Intervals({ s }: Prop) {
  const a = s.assessment;
  const rows: [string, { numerator: number; denominator: number; value: number; ci95: [number, number] }, boolean][] = [
    ['attack success', a.attack_success, true],
    ['targeted attack success (ASR)', a.utility.targeted_asr, true],
    ['false blocks (benign)', a.false_block, true],
    ['benign utility', a.utility.benign_utility, false],
    ['utility under attack', a.utility.utility_under_attack, false],
    ['clean utility under attack', a.utility.clean_utility_under_attack, false],
    ['runs with a canary leak', a.leakage.runs_with_leak, true],
    ['coverage', a.coverage, false],
  ];
  return (
    <Section title="Rates with Wilson 95% intervals">
      <table className="grid" data-testid="intervals">
        <tbody>
          {rows.map(([label, p, bad]) => (
            <tr key={label}>
              <th>{label}</th>
              <td>
                {amount(p.numerator)} / {amount(p.denominator)}
              </td>
              <td>
                {/* Alarm colour only when something bad was observed: 0% attack success is a good result. */}
                <Interval value={p.value} ci={p.ci95} bad={bad && p.numerator > 0} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Attack tiers</h3>
      <table className="grid">
        <thead>
          <tr>
            <th>tier</th>
            <th>resisted</th>
            <th>share</th>
            <th>complete</th>
          </tr>
        </thead>
        <tbody>
          {a.tiers.map((t) => (
            <tr key={t.tier}>
              <td>{t.tier}</td>
              <td>
                {t.resisted} / {t.total}
              </td>
              <td>{pct(t.value)}</td>
              <td>{t.complete ? 'yes' : 'no'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

function ControlChange({ s }: Prop) {
  const c = s.comparison;
  if (!c) return null;
  const p = c.paired;
  return (
    <Section title={`Control change against baseline ${c.baseline.campaign_id.slice(0, 8)}`}>
      <table className="grid" data-testid="control-change">
        <tbody>
          <tr>
            <th>baseline attack success</th>
            <td>
              <Interval value={p.baseline_attack_success.value} ci={p.baseline_attack_success.ci95} bad />
            </td>
          </tr>
          <tr>
            <th>protected attack success</th>
            <td>
              <Interval value={p.protected_attack_success.value} ci={p.protected_attack_success.ci95} bad />
            </td>
          </tr>
          <tr>
            <th>drop</th>
            <td>
              {pct(p.attack_success_drop)} over {p.attack_pairs} paired attacks; {p.stopped} stopped, {p.introduced}{' '}
              introduced; exact McNemar p = {p.mcnemar_p.toPrecision(3)}
              {p.significant_at_5pct ? ' (significant at 5%)' : ' (not significant at 5%)'}
            </td>
          </tr>
          <tr>
            <th>composite</th>
            <td>
              {num(p.control_change.baseline_composite, 3)} → {num(p.control_change.protected_composite, 3)}
            </td>
          </tr>
          <tr>
            <th>utility cost</th>
            <td>
              benign utility {pct(p.utility_cost.baseline_benign_utility.value)} →{' '}
              {pct(p.utility_cost.protected_benign_utility.value)}; false blocks{' '}
              {pct(p.utility_cost.protected_false_block_rate.value)}; approvals per run{' '}
              {num(p.utility_cost.baseline_approvals_per_run, 2)} → {num(p.utility_cost.protected_approvals_per_run, 2)}
            </td>
          </tr>
          <tr>
            <th>stopped scenarios</th>
            <td>
              <Chips items={p.stopped_scenarios} tone="good" />
            </td>
          </tr>
          {p.introduced_scenarios.length > 0 ? (
            <tr>
              <th>regressions</th>
              <td>
                <Chips items={p.introduced_scenarios} tone="bad" />
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </Section>
  );
}

function Ladder({ s }: Prop) {
  return (
    <Section title="Authority ladder">
      <table className="grid">
        <thead>
          <tr>
            <th>level</th>
            <th>granted</th>
            <th>checks that failed</th>
          </tr>
        </thead>
        <tbody>
          {s.assessment.authority.steps.map((step) => (
            <tr key={step.level}>
              <td>{step.level}</td>
              <td>{step.granted ? <Pill tone="good">yes</Pill> : <Pill tone="muted">no</Pill>}</td>
              <td className="small">
                {step.checks
                  .filter((c) => !c.passed)
                  .map((c) => (
                    <div key={c.rule}>
                      {humanize(c.rule)}: {c.detail}
                    </div>
                  ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {s.assessment.limitations.length > 0 ? (
        <>
          <h3>Limitations</h3>
          <ul className="small">
            {s.assessment.limitations.map((l) => (
              <li key={l}>{l}</li>
            ))}
          </ul>
        </>
      ) : null}
    </Section>
  );
}

/** The scorecard view: level and gates first, then families, intervals, the control change and the ladder. */
export function ScorecardView({ s }: Prop) {
  return (
    <>
      <RunsBanner s={s} />
      <Decision s={s} />
      <ControlChange s={s} />
      <Ledgers s={s} />
      <Gates s={s} />
      <Families s={s} />
      <Intervals s={s} />
      <Ladder s={s} />
    </>
  );
}
