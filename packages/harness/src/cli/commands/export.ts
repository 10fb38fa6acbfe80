import type { Command } from '@commander-js/extra-typings';
import { errorMessage } from '../../core/errors.js';
import { formatZodIssue } from '../../core/zod-issues.js';
import { CliError, collect, EXIT } from '../common.js';

function keyValue(value: string, previous: Record<string, unknown> | undefined): Record<string, unknown> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new CliError(`--option expects key=value (got '${value}')`);
  const key = value.slice(0, eq).trim();
  const raw = value.slice(eq + 1);
  let parsed: unknown = raw;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // Not JSON: keep the text as a string option.
  }
  return { ...(previous ?? {}), [key]: parsed };
}

/**
 * `harness export <run> --format <reporter>`: re-render a stored run with any registered reporter.
 *
 * @example harness export runs/20260101-120000-support --format junit --out junit.xml
 */
export function register(program: Command): void {
  program
    .command('export')
    .description('re-render a stored run with any reporter (csv, html, junit, markdown, jsonl, json, console)')
    .argument('<run>', 'run folder, journal (.jsonl), experiment JSON, or stored run id')
    .requiredOption('-f, --format <format>', 'reporter name: csv, html, junit, markdown, jsonl, json, console')
    .option('-o, --out <file>', 'write to this file (parent folders are created); default: stdout')
    .option('--option <key=value>', 'reporter option (value parsed as JSON when it can be), repeatable', keyValue)
    .option('--store <url>', 'run index for run ids (default: HARNESS_STORE_URL, else <runs-dir>/index.sqlite)')
    .option('--runs-dir <dir>', 'folder of run folders (for run ids)', 'runs')
    .option('--plugin <module>', 'load a plugin module first, e.g. a reporter (path or package; repeatable)', collect)
    .action(async (ref, opts) => {
      // Only the reporters are needed (not every adapter and evaluator), which keeps export quick to start.
      const { reporterRegistry } = await import('../../reporters/index.js');
      const { resolveRun, RunReferenceError } = await import('../../comparison/resolve-run.js');
      if (opts.plugin) {
        const { importModule } = await import('../../plugins/import.js');
        for (const p of opts.plugin) {
          try {
            await importModule(p, process.cwd());
          } catch (err) {
            throw new CliError(`cannot load plugin '${p}': ${errorMessage(err)}`, EXIT.usage);
          }
        }
      }
      const plugin = reporterRegistry.get(opts.format);
      const parsed = plugin.options.safeParse(opts.option ?? {});
      if (!parsed.success) {
        const [issue] = parsed.error.issues;
        const what = issue ? formatZodIssue(issue, '(options)') : '(options): invalid';
        throw new CliError(`${opts.format} reporter option ${what}`, EXIT.usage);
      }
      let run: Awaited<ReturnType<typeof resolveRun>>;
      try {
        run = await resolveRun(ref, { store: opts.store, runsDir: opts.runsDir });
      } catch (err) {
        if (err instanceof RunReferenceError) throw new CliError(err.message, EXIT.usage, { cause: err });
        throw err;
      }
      try {
        const reporter = plugin.create(parsed.data as never);
        const text = await reporter.report(await run.view(), opts.out);
        if (opts.out) process.stderr.write(`harness: ${opts.format} report written to ${opts.out}\n`);
        else process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
      } finally {
        await run.close();
      }
    });
}
