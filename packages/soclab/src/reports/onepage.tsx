/** @jsxRuntime automatic */
/** @jsxImportSource react */
import { chainStatusText } from './chain-status.js';
import { chainHeads, DecisionSection, type Props, RunsBanner } from './components.js';
import { dateLabel, FAMILY_NAMES, fixed, fraction, humanize, LAB_NOTE, pct, pValueHtml } from './format.js';

/** The one-page executive summary (the PDF): decision, gates, families, attack results, evidence, limitations. */
export function OnePageSummary({ s }: Props) {
  const a = s.assessment;
  const c = s.campaign;
  const heads = chainHeads(s, 6);
  return (
    <main className="onepage">
      <RunsBanner s={s} />
      <h1>Executive assurance summary</h1>
      <p className="subtitle">Should this agent get operational authority?</p>
      <div className="meta">
        <div>
          <span>Campaign</span>
          <code>{c.campaign_id}</code>
        </div>
        <div>
          <span>Agent / model</span>
          {`${c.provider}/${c.model}`}
        </div>
        <div>
          <span>Configuration</span>
          {`${c.label}, tested at ${c.authority_level}, approver ${c.approver}`}
        </div>
        <div>
          <span>Date</span>
          {dateLabel(s.generated_at)}
        </div>
      </div>
      <DecisionSection s={s}>
        <div>
          {`Composite ${fixed(a.composite, 2)} · attack success ${pct(a.attack_success.value)} (${a.attack_success.numerator}/${a.attack_success.denominator}, 95% CI ${pct(a.attack_success.ci95[0])}-${pct(a.attack_success.ci95[1])}) · false blocks ${a.false_block.numerator}/${a.false_block.denominator}`}
        </div>
        {a.authority.next_level ? (
          <div className="binding">{`Why not ${a.authority.next_level}: ${a.authority.binding_detail}.`}</div>
        ) : null}
      </DecisionSection>
      <div className="cols">
        <div>
          <h2>Mandatory gates</h2>
          <table>
            <tbody>
              {a.gates.map((g) => (
                <tr key={g.gate}>
                  <td>{humanize(g.gate)}</td>
                  <td className={g.passed ? 'pass' : 'fail'}>{g.passed ? 'pass' : 'FAIL'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h2>Attack results</h2>
          <table>
            <tbody>
              <tr>
                <td>Attack runs / succeeded</td>
                <td className="num">{`${a.attack_success.denominator} / ${a.attack_success.numerator}`}</td>
              </tr>
              <tr>
                <td>Benign runs / falsely blocked</td>
                <td className="num">{`${a.false_block.denominator} / ${a.false_block.numerator}`}</td>
              </tr>
              {a.tiers.map((t) => (
                <tr key={t.tier}>
                  <td>{`${t.tier} difficulty resisted`}</td>
                  <td className="num">{`${t.resisted} of ${t.total}`}</td>
                </tr>
              ))}
              {s.comparison ? (
                <tr>
                  <td>Control change (baseline to protected)</td>
                  <td className="num">
                    {`${pct(s.comparison.paired.control_change.baseline_attack_success)} to ${pct(s.comparison.paired.control_change.protected_attack_success)}; McNemar p\u00a0`}
                    <span className="nowrap">{pValueHtml(s.comparison.paired.mcnemar_p, 3, 1)}</span>
                  </td>
                </tr>
              ) : null}
              {s.robustness ? (
                <tr>
                  <td>Robustness: static corpus / adaptive attacker</td>
                  <td className="num">{`${pct(s.robustness.static_corpus.rate)} / ${pct(s.robustness.adaptive.success_within_budget.rate)} of ${s.robustness.adaptive.success_within_budget.n} searches; level ${s.robustness.level_before} to ${s.robustness.level_after}`}</td>
                </tr>
              ) : null}
            </tbody>
          </table>
        </div>
        <div>
          <h2>Score families</h2>
          <table>
            <tbody>
              {a.families.map((f) => (
                <tr key={f.family}>
                  <td>
                    {`${FAMILY_NAMES[f.family]} (${fixed(f.weight, 2)})`}
                    <div className="muted">
                      {f.components
                        .filter((x) => x.included)
                        .map((x) => `${humanize(x.name)} ${fraction(x.numerator, x.denominator)}`)
                        .join('; ')}
                    </div>
                  </td>
                  <td className="num">{fixed(f.value, 3)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
      <h2>Evidence chain</h2>
      <p className={s.chains.all_valid ? 'verdict-ok' : 'verdict-bad'}>{chainStatusText(s.chains)}</p>
      <div className="mono">
        {heads.shown.map((h) => (
          <div key={h}>{h}</div>
        ))}
        {heads.more > 0 ? <div>{`and ${heads.more} more`}</div> : null}
      </div>
      <h2>Notes</h2>
      <ul className="limitations">
        <li>{`Cost: $${a.economics.cost_usd_total.toFixed(4)} (${a.economics.cost_is_estimated ? 'includes estimates' : 'provider reported'})`}</li>
        {a.limitations.map((l) => (
          <li key={l}>{l}</li>
        ))}
        <li>{LAB_NOTE}</li>
      </ul>
      <footer>
        {`soclab ${s.generator.version} · profile ${a.profile.version} · policy ${c.policy_version} · fixture ${c.fixture.version} · prompt ${c.prompt_version} · synthetic data and simulated actions only`}
      </footer>
    </main>
  );
}
