import { writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { errorMessage } from '@aeh/harness/errors';
import { type Command, Option } from '@commander-js/extra-typings';
import { preferProductionReact } from '../campaign-support.js';
import { CliError, EXIT } from '../common.js';

/** Default PDF path next to a scorecard: `x/scorecard.json` -> `x/executive.pdf`, `x/baseline-scorecard.json` -> `x/baseline-executive.pdf`. */
export function defaultPdfPath(scorecardPath: string): string {
  const name = basename(scorecardPath);
  const pdf = name.endsWith('scorecard.json')
    ? `${name.slice(0, -'scorecard.json'.length)}executive.pdf`
    : name.replace(/\.json$/i, '') + '.pdf';
  return join(dirname(scorecardPath), pdf);
}

/** `soclab report <scorecard.json>`: render a stored scorecard as the one-page PDF, plain text or HTML. */
export function register(program: Command): void {
  program
    .command('report')
    .description(
      'render a scorecard (written by campaign, compare or demo) as the one-page executive PDF, plain text or HTML',
    )
    .argument('<scorecard>', 'scorecard JSON file, e.g. runs/demo/scorecard.json')
    .addOption(
      new Option('--format <format>', 'output format')
        .choices(['pdf', 'text', 'html'] as const)
        .default('pdf' as const),
    )
    .addOption(
      new Option('--audience <audience>', 'HTML report to render')
        .choices(['executive', 'technical'] as const)
        .default('executive' as const),
    )
    .option(
      '--out <file>',
      'where to write (pdf default: executive.pdf next to the scorecard; text and html default: stdout)',
    )
    .action(async (file, opts) => {
      preferProductionReact();
      const { readScorecard } = await import('../../reports/scorecard.js');
      let scorecard: ReturnType<typeof readScorecard>;
      try {
        scorecard = readScorecard(file);
      } catch (error) {
        throw new CliError(errorMessage(error), EXIT.usage);
      }
      if (opts.format === 'text' || opts.format === 'html') {
        // React's server renderer loads only for HTML.
        const text =
          opts.format === 'text'
            ? (await import('../../reports/text.js')).renderText(scorecard)
            : (await import('../../reports/render.js')).renderHtml(scorecard, opts.audience);
        if (opts.out) {
          writeFileSync(opts.out, text);
          process.stdout.write(`wrote ${opts.out}\n`);
        } else process.stdout.write(text);
        return;
      }
      const { PdfSupportError, renderPdf } = await import('../../reports/pdf.js');
      const target = opts.out ?? defaultPdfPath(file);
      try {
        writeFileSync(target, await renderPdf(scorecard));
      } catch (error) {
        if (error instanceof PdfSupportError) throw new CliError(error.message, EXIT.runtime);
        throw error;
      }
      process.stdout.write(`wrote ${relative(process.cwd(), target) || target}\n`);
    });
}
