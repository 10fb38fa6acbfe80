/** @jsxRuntime automatic */
/** @jsxImportSource react */
import { chainStatusText } from './chain-status.js';
import { FamilyBars } from './charts.js';
import {
  AblationTable,
  ComparisonTable,
  ControlChange,
  DecisionBox,
  FamiliesTable,
  Footer,
  GatesTable,
  LedgersTable,
  Limitations,
  Meta,
  type Props,
  RobustnessSection,
  RunsBanner,
  TiersTable,
} from './components.js';
import { ArgumentList, chainAnchor, DecisionsByScenario } from './decisions.js';
import { fixed, humanize, inconclusiveText, proportionText } from './format.js';

const yes = (b: boolean, bad = true) => <td className={b === bad ? 'fail' : 'pass'}>{b ? 'yes' : 'no'}</td>;

/** The technical evidence package: every number with its numerator and denominator, every run, every decision. */
export function TechnicalReport({ s }: Props) {
  const a = s.assessment;
  const c = s.campaign;
  return (
    <main>
      <RunsBanner s={s} />
      <h1>Technical evidence package</h1>
      <p className="subtitle">{`${c.provider}/${c.model}, ${c.label}, ${c.incident.id} ${c.incident.title}${c.provider_validation ? `; provider validation ${c.provider_validation}` : ''}`}</p>
      <DecisionBox s={s} />
      <Meta s={s} />

      <h2>The three ledgers</h2>
      <LedgersTable s={s} />

      <h2>Versions</h2>
      <table>
        <tbody>
          <tr>
            <td>Scoring profile</td>
            <td>{`${a.profile.name} ${a.profile.version}`}</td>
          </tr>
          <tr>
            <td>Policy</td>
            <td>{c.policy_version}</td>
          </tr>
          <tr>
            <td>Fixture</td>
            <td>
              {`${c.fixture.name} ${c.fixture.version} `}
              <code>{c.fixture.sha256}</code>
            </td>
          </tr>
          <tr>
            <td>Prompt</td>
            <td>{c.prompt_version}</td>
          </tr>
          <tr>
            <td>Incident</td>
            <td>{`${c.incident.id} ${c.incident.version}`}</td>
          </tr>
          <tr>
            <td>Harness run folder</td>
            <td>
              <code>{c.run_folder}</code>
            </td>
          </tr>
        </tbody>
      </table>

      <h2>Score families and components</h2>
      <FamilyBars families={a.families} />
      <FamiliesTable s={s} components />

      <h2>Authority ladder</h2>
      <p>{`Recommended ${a.authority.level} (${a.authority.label}); bound by ${humanize(a.authority.binding_rule)}: ${a.authority.binding_detail}.`}</p>
      {a.authority.steps.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th>Level</th>
              <th>Granted</th>
              <th>Checks</th>
            </tr>
          </thead>
          <tbody>
            {a.authority.steps.map((step) => (
              <tr key={step.level}>
                <td>{step.level}</td>
                <td className={step.granted ? 'pass' : 'fail'}>{step.granted ? 'yes' : 'no'}</td>
                <td>
                  {step.checks.map((check) => (
                    <div key={check.rule} className={check.passed ? '' : 'fail'}>
                      {`${check.passed ? 'ok' : 'FAILS'} ${humanize(check.rule)}: ${check.detail}`}
                    </div>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}

      <h2>Mandatory gates and critical failures</h2>
      <GatesTable s={s} details />
      <p>
        {a.critical_failures.length === 0
          ? 'Critical failures (attacks that succeeded in protected mode): none.'
          : `Critical failures (attacks that succeeded in protected mode): ${a.critical_failures.join(', ')}.`}
      </p>

      <h2>Statistics</h2>
      <table>
        <tbody>
          <tr>
            <td>Attack success (runs, Wilson 95%)</td>
            <td>{proportionText(a.attack_success)}</td>
          </tr>
          <tr>
            <td>False-block rate</td>
            <td>{proportionText(a.false_block)}</td>
          </tr>
          <tr>
            <td>Benign utility</td>
            <td>{proportionText(a.utility.benign_utility)}</td>
          </tr>
          <tr>
            <td>Utility under attack</td>
            <td>{proportionText(a.utility.utility_under_attack)}</td>
          </tr>
          <tr>
            <td>Clean utility under attack</td>
            <td>{proportionText(a.utility.clean_utility_under_attack)}</td>
          </tr>
          <tr>
            <td>Targeted ASR</td>
            <td>{proportionText(a.utility.targeted_asr)}</td>
          </tr>
          <tr>
            <td>NRP = benign utility x (1 - ASR)</td>
            <td>{fixed(a.utility.nrp, 3)}</td>
          </tr>
          <tr>
            <td>Runs with a canary persisted</td>
            <td>{proportionText(a.leakage.runs_with_leak)}</td>
          </tr>
          <tr>
            <td>Minimum runs per attack scenario</td>
            <td>{a.min_runs_per_scenario}</td>
          </tr>
          <tr>
            <td>Samples (attack + benign runs)</td>
            <td>{`${a.sample_count} (${a.attack_runs} + ${a.benign_runs})`}</td>
          </tr>
        </tbody>
      </table>
      <p className="muted">{`Solved: ${a.utility.definition}.`}</p>
      <TiersTable s={s} />

      {s.comparison ? (
        <>
          <h2>Baseline versus protected (paired)</h2>
          <ControlChange s={s} />
          <p>
            {`Stopped: ${s.comparison.paired.stopped_scenarios.join(', ') || 'none'}. Introduced: ${s.comparison.paired.introduced_scenarios.join(', ') || 'none'}. ${inconclusiveText(s.comparison.paired.inconclusive_scenarios)}`.trimEnd()}
          </p>
        </>
      ) : null}

      <RobustnessSection s={s} />

      {s.ablation ? (
        <>
          <h2>Per-control ablation</h2>
          <AblationTable s={s} />
          <table>
            <thead>
              <tr>
                <th>Attack stopped in protected mode</th>
                <th>Succeeds without</th>
              </tr>
            </thead>
            <tbody>
              {s.ablation.attacks.map((x) => (
                <tr key={x.scenario_id}>
                  <td>{x.scenario_id}</td>
                  <td>
                    {x.necessary_controls.length === 0
                      ? 'no single control (layered)'
                      : x.necessary_controls.join(', ')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}

      <h2>Configurations compared</h2>
      <ComparisonTable s={s} />

      <h2>Leakage by sink and encoding</h2>
      <table>
        <thead>
          <tr>
            <th>Sink</th>
            <th className="num">Runs</th>
            <th className="num">Findings</th>
          </tr>
        </thead>
        <tbody>
          {a.leakage.by_sink.map((x) => (
            <tr key={x.sink}>
              <td>{humanize(x.sink)}</td>
              <td className="num">{x.runs}</td>
              <td className="num">{x.findings}</td>
            </tr>
          ))}
          {a.leakage.by_encoding.map((x) => (
            <tr key={x.encoding}>
              <td>{`encoding: ${x.encoding}`}</td>
              <td className="num">{x.runs}</td>
              <td className="num">{x.findings}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <h2>Per-scenario outcomes</h2>
      <table>
        <thead>
          <tr>
            <th>Scenario</th>
            <th>Class / family / difficulty</th>
            <th>Attack succeeded</th>
            <th>False block</th>
            <th>Leak</th>
            <th>Bypass</th>
            <th className="num">Claims</th>
            <th>Action (arguments, status)</th>
            <th>Attempted by the agent</th>
            <th>Status</th>
            <th className="num">Tokens</th>
            <th className="num">ms</th>
            <th className="num">Cost</th>
          </tr>
        </thead>
        <tbody>
          {s.runs.map((r) => (
            <tr key={`${r.scenario_id}#${r.repeat}`}>
              <td>
                {`${r.scenario_id} v${r.scenario_version}${r.repeat > 0 ? ` #${r.repeat}` : ''}`}
                <div className="muted">{r.title}</div>
              </td>
              <td>{`${r.attack_class} / ${humanize(r.family)} / ${r.difficulty}`}</td>
              {r.attack_class === 'none' ? <td className="muted">benign</td> : yes(r.attack_succeeded)}
              {yes(r.false_block)}
              <td className={r.leaked_canary ? 'fail' : 'pass'}>{r.leaked_canary ? r.leak_where.join(', ') : 'no'}</td>
              {yes(r.approval_bypassed)}
              <td className="num">{`${r.claims_supported}/${r.claims_total}`}</td>
              <td>
                {r.recommended_tool ?? 'none'}
                {r.action_arguments ? <ArgumentList json={r.action_arguments} /> : null}
                <div className="muted">
                  {`${r.action_status ?? '-'}${r.action_reasons.length > 0 ? ` [${r.action_reasons.join(', ')}]` : ''}`}
                </div>
              </td>
              <td className={r.attempted && r.attempted.length > 0 ? 'fail' : ''}>
                {r.attempted ? r.attempted.join('; ') || 'nothing harmful' : '-'}
              </td>
              <td>{r.investigation_status}</td>
              <td className="num">{r.tokens}</td>
              {/* A seeded campaign leaves wall-clock latency out (it would differ between identical runs). */}
              <td className="num">{s.campaign.reproducible ? '-' : r.latency_ms.toFixed(0)}</td>
              <td className="num">{`$${r.cost_usd.toFixed(4)}${r.cost_is_estimated ? ' (est.)' : ''}`}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {c.skipped.length > 0 ? (
        <>
          <h3>Not run</h3>
          <ul>
            {c.skipped.map((x) => (
              <li key={x.scenario_id}>{`${x.scenario_id}: ${x.reason}`}</li>
            ))}
          </ul>
        </>
      ) : null}
      {c.errors.length > 0 ? (
        <>
          <h3>Runs that failed before producing an outcome</h3>
          <ul>
            {c.errors.map((x) => (
              <li key={`${x.scenario_id}#${x.repeat}`}>{`${x.scenario_id}#${x.repeat}: ${x.error}`}</li>
            ))}
          </ul>
        </>
      ) : null}

      <h2>Policy decisions, approvals and executions</h2>
      <DecisionsByScenario s={s} />

      <h2>Audit chain verification</h2>
      <p className={s.chains.all_valid ? 'verdict-ok' : 'verdict-bad'}>{chainStatusText(s.chains)}</p>
      <table>
        <thead>
          <tr>
            <th>Scenario</th>
            <th>Run id</th>
            <th>Valid</th>
            <th className="num">Events</th>
            <th>Root hash</th>
          </tr>
        </thead>
        <tbody>
          {s.chains.runs.map((r) => (
            <tr key={`${r.scenario_id}#${r.repeat}`} id={chainAnchor(r.scenario_id, r.repeat)}>
              <td>{`${r.scenario_id}${r.repeat > 0 ? ` #${r.repeat}` : ''}`}</td>
              <td className="mono">{r.run_id}</td>
              <td className={r.valid ? 'pass' : 'fail'}>
                {r.valid ? 'valid' : `failed verification at ${r.first_invalid_sequence} (${r.reason ?? ''})`}
              </td>
              <td className="num">{r.length}</td>
              <td className="mono">{r.root_hash ?? '-'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">Verify any run again with: soclab verify-chain &lt;run id&gt; (same evidence database).</p>

      <h2>Limitations</h2>
      <Limitations s={s} />
      <Footer s={s} />
    </main>
  );
}
