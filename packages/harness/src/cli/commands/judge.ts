import { type Command, Option } from '@commander-js/extra-typings';
import { CliError, EXIT } from '../common.js';

/**
 * `harness judge calibrate labels.jsonl --judge <provider/model>`: measure an LLM judge against human labels
 * (agreement and Cohen's kappa with intervals, confusion matrix, bias), so a judge is chosen on evidence.
 */
export function register(program: Command): void {
  const judge = program.command('judge').description('LLM judges: measure them before trusting them');
  judge
    .command('calibrate')
    .description("agreement of an LLM judge with human pass/fail labels: agreement, Cohen's kappa, confusion, bias")
    .argument(
      '<labels>',
      'JSONL file: {"input", "output", "label": true|false|"pass"|"fail", "expected"?, "id"?} per line',
    )
    .requiredOption('--judge <provider/model>', 'the judge, e.g. openai/gpt-4o-mini')
    .option(
      '--evaluator <name>',
      'judge evaluator whose verdict is compared (llm_rubric, closed_qa, factuality)',
      'llm_rubric',
    )
    .option('--rubric <text>', 'rubric (llm_rubric) or criteria (closed_qa); else each line\'s "expected"')
    .addOption(new Option('--format <format>', 'output format').choices(['console', 'json']).default('console'))
    .action(async (labelsPath, opts) => {
      const { loadBuiltins } = await import('../common.js');
      await loadBuiltins();
      const { parseJudgeFlag, JudgeSpecError } = await import('../../comparison/pairwise-judge.js');
      const { calibrateJudge, readLabels, renderCalibration, LabelsFileError } = await import(
        '../../evaluators/support/judge-calibration.js'
      );
      if (!['llm_rubric', 'closed_qa', 'factuality'].includes(opts.evaluator)) {
        throw new CliError(`--evaluator must be llm_rubric, closed_qa or factuality (got '${opts.evaluator}')`);
      }
      let spec: ReturnType<typeof parseJudgeFlag>;
      let labels: ReturnType<typeof readLabels>;
      try {
        spec = parseJudgeFlag(opts.judge);
        labels = readLabels(labelsPath);
      } catch (err) {
        if (err instanceof JudgeSpecError || err instanceof LabelsFileError)
          throw new CliError(err.message, EXIT.usage, { cause: err });
        throw err;
      }
      let report: Awaited<ReturnType<typeof calibrateJudge>>;
      try {
        report = await calibrateJudge(labels, spec, { baseDir: process.cwd(), env: process.env }, opts);
      } catch (err) {
        // The judge cannot be built (unknown provider, missing key): a configuration problem, said up front.
        if (err instanceof Error && err.name === 'ProviderError') throw new CliError(err.message, EXIT.usage);
        throw err;
      }
      process.stdout.write(
        opts.format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : renderCalibration(report, labelsPath),
      );
      if (report.judged === 0) {
        throw new CliError('the judge gave no usable verdict on any labelled example', EXIT.runtime);
      }
    });
}
