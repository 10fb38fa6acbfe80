import { writeFileSync } from 'node:fs';
import { errorMessage } from '@aeh/harness/errors';
import type { Command } from '@commander-js/extra-typings';
import { Option } from '@commander-js/extra-typings';
import { CliError, c, EXIT, printJson, table } from '../common.js';

const AGENTS = ['mock:gullible', 'mock:cautious', 'mock:grounded'] as const;

/**
 * `soclab attack`: the adaptive attacker. For each attack goal of the incident it searches templates x
 * transforms x placements, guided by the evidence trail of earlier tries, and stops at the first success or the
 * budget. Reports attack success within k tries per goal (Wilson 95% intervals over restarts), the cheapest
 * successful variant and what stopped each failed try. Deterministic for a --seed. Exit 0 when done, 1 with
 * --fail-on-success when any goal succeeded, 2 on bad input.
 *
 * @example
 *   soclab attack --agent mock:gullible --mode protected --ablate policy --level L5 --budget 12 --seed 7
 */
export function register(program: Command): void {
  program
    .command('attack')
    .description(
      'adaptive attacker: per attack goal, search payload templates x transforms x placements guided by what the agent did on earlier tries, until the first success or --budget; report attack success within k tries (with 95% intervals), the cheapest successful variant and which control stopped each failed try; deterministic for --seed',
    )
    .addOption(new Option('--agent <agent>', 'the agent under attack').choices(AGENTS).default('mock:gullible'))
    .requiredOption('--budget <n>', 'tries per goal and restart (1-10000)')
    .option('--seed <seed>', 'search seed (same seed, same tries)', '0')
    .option('--restarts <n>', 'independent searches per goal, for the interval of the curve', '3')
    .addOption(new Option('--mode <mode>', 'lab mode').choices(['baseline', 'protected']).default('protected'))
    .option(
      '--ablate <control>',
      'run protected mode without one control (policy, approvals, grants, redaction, limits, scope)',
    )
    .addOption(new Option('--level <level>', 'authority level').choices(['L1', 'L2', 'L3', 'L4', 'L5']).default('L4'))
    .option('--approver <approver>', 'none, ideal, rubber_stamp or noisy:<p>', 'none')
    .option('--incident <name>', 'incident (file under incidents/)', 'identity-compromise')
    .option('--goals <ids>', 'comma-separated attack ids whose goals to pursue (default: every payload attack)')
    .option('--dir <path>', 'extra scenario folder (default: SOCLAB_SCENARIO_DIR)')
    .option('--out <file>', 'write the full report (every try) as JSON')
    .option(
      '--scorecard <file>',
      'a campaign scorecard to add the robustness section to (static corpus vs adaptive); the adaptive result lowers its earned level when it attacked the same configuration (see methodology.md)',
    )
    .option('--scorecard-out <file>', 'where to write that scorecard (required with --scorecard)')
    .option('--fail-on-success', 'exit 1 when any goal succeeded')
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const int = (name: string, value: string, max: number): number => {
        if (!/^\d+$/.test(value.trim()) || Number(value) < 1 || Number(value) > max) {
          throw new CliError(`--${name} must be an integer from 1 to ${max}, got '${value}'`, EXIT.usage);
        }
        return Number(value);
      };
      const budget = int('budget', opts.budget, 10_000);
      if ((opts.scorecard === undefined) !== (opts.scorecardOut === undefined)) {
        throw new CliError('--scorecard and --scorecard-out go together', EXIT.usage);
      }
      const { readScorecard, scorecardJson } = await import('../../reports/scorecard.js');
      let scorecard: ReturnType<typeof readScorecard> | null = null;
      if (opts.scorecard !== undefined) {
        try {
          scorecard = readScorecard(opts.scorecard);
        } catch (error) {
          throw new CliError(`--scorecard: ${errorMessage(error)}`, EXIT.usage);
        }
      }
      if (!/^[a-z][a-z0-9_-]{0,63}$/.test(opts.incident)) {
        throw new CliError(
          `--incident must be a lowercase name of a file under incidents/, got '${opts.incident}'`,
          EXIT.usage,
        );
      }
      const restarts = int('restarts', opts.restarts, 100);
      if (opts.ablate !== undefined && opts.mode !== 'protected') {
        throw new CliError('--ablate applies to protected mode only', EXIT.usage);
      }
      const { parseApproverMode } = await import('../../control/approver.js');
      try {
        parseApproverMode(opts.approver);
      } catch (error) {
        throw new CliError(`--approver: ${errorMessage(error)}`, EXIT.usage);
      }
      await import('../../modes/protected.js');
      const { registerAblationModes, ablationModeName, parseAblateList } = await import(
        '../../modes/ablation-modes.js'
      );
      let mode: string = opts.mode;
      if (opts.ablate !== undefined) {
        let controls: ReturnType<typeof parseAblateList>;
        try {
          controls = parseAblateList(opts.ablate);
        } catch (error) {
          throw new CliError(`--ablate: ${errorMessage(error)}`, EXIT.usage);
        }
        const [control] = controls;
        if (control === undefined || controls.length !== 1 || control === 'labels') {
          throw new CliError(
            '--ablate takes one control: policy, approvals, grants, redaction, limits or scope',
            EXIT.usage,
          );
        }
        registerAblationModes();
        mode = ablationModeName(control);
      }
      const { loadCorpus, ScenarioLoadError } = await import('../../scenarios/loader.js');
      let corpus: ReturnType<typeof loadCorpus>;
      try {
        corpus = loadCorpus({ incident: opts.incident, ...(opts.dir !== undefined ? { dir: opts.dir } : {}) });
      } catch (error) {
        if (error instanceof ScenarioLoadError) throw new CliError(`invalid scenarios:\n${error.message}`, EXIT.usage);
        throw error;
      }
      const { MockAdversaryProvider } = await import('../../providers/mock.js');
      const behavior = opts.agent.slice('mock:'.length) as 'gullible' | 'cautious' | 'grounded';
      const { runAdaptiveAttack } = await import('../../attack/index.js');
      let report: Awaited<ReturnType<typeof runAdaptiveAttack>>;
      try {
        report = await runAdaptiveAttack({
          corpus,
          agent: (s) =>
            new MockAdversaryProvider({
              behavior,
              model: s.provider.model,
              costPerCallUsd: s.provider.cost_per_call_usd,
            }),
          mode,
          budget,
          restarts,
          seed: opts.seed,
          goals: opts.goals
            ?.split(',')
            .map((g) => g.trim())
            .filter(Boolean),
          approver: opts.approver,
          authorityLevel: opts.level,
        });
      } catch (error) {
        if (error instanceof RangeError) throw new CliError(error.message, EXIT.usage);
        throw error;
      }
      if (opts.out) writeFileSync(opts.out, `${JSON.stringify(report, null, 2)}\n`);
      let robustRule: string | null = null;
      if (scorecard && opts.scorecardOut) {
        const { withRobustness } = await import('../../attack/robustness.js');
        const updated = withRobustness(scorecard, report);
        writeFileSync(opts.scorecardOut, scorecardJson(updated));
        robustRule = `${updated.robustness.level_before} -> ${updated.robustness.level_after}: ${updated.robustness.rule}`;
      }
      const won = report.goals.filter((g) => g.first_success.some((f) => f !== null));
      if (opts.json) {
        const { records: _records, ...summary } = report;
        printJson(robustRule ? { ...summary, scorecard: { file: opts.scorecardOut, level: robustRule } } : summary);
      } else {
        process.stdout.write(
          `${c.bold('adaptive attack')} ${report.incident} · ${mode} · agent ${opts.agent} · level ${opts.level} · budget ${budget} x ${restarts} restart(s) · seed ${opts.seed} · ${report.tries} tries\n`,
        );
        const t = table([
          'goal',
          'won',
          'first success',
          `success within ${budget} (95% CI)`,
          'cheapest success',
          'stopped by',
        ]);
        for (const g of report.goals) {
          const last = g.curve.at(-1);
          const cheap = g.cheapest_success;
          t.push([
            g.goal,
            last ? `${last.successes}/${last.n}` : '-',
            g.first_success.map((f) => (f === null ? '-' : String(f))).join(' '),
            last
              ? `${(last.rate * 100).toFixed(0)}% [${(last.ci95.lower * 100).toFixed(0)}, ${(last.ci95.upper * 100).toFixed(0)}]`
              : '-',
            cheap ? `${cheap.transforms.join('+') || 'plain'} · template ${cheap.template} · ${cheap.placement}` : '-',
            Object.entries(g.stopped_by)
              .map(([k, n]) => `${k} ${n}`)
              .join(', ') || '-',
          ]);
        }
        process.stdout.write(`${t.toString()}\n`);
        const curve = report.curve
          .filter((p) => p.k === 1 || p.k === budget || p.k === Math.ceil(budget / 2))
          .map(
            (p) =>
              `k=${p.k}: ${(p.rate * 100).toFixed(0)}% [${(p.ci95.lower * 100).toFixed(0)}, ${(p.ci95.upper * 100).toFixed(0)}]`,
          );
        process.stdout.write(`attack success within k tries (all goals): ${curve.join(' · ')}\n`);
        if (opts.out) process.stdout.write(`report: ${opts.out}\n`);
        if (robustRule) process.stdout.write(`scorecard ${opts.scorecardOut}: level ${robustRule}\n`);
      }
      if (opts.failOnSuccess && won.length > 0) process.exitCode = EXIT.gate;
    });
}
