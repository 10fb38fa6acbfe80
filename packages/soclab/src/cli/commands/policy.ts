import type { Command } from '@commander-js/extra-typings';
import { CliError, c, EXIT, printJson, safeText } from '../common.js';

/**
 * `soclab policy`: work with the authorization policy (Cedar, `data/policies` or `SOCLAB_POLICY_DIR`).
 * - `soclab policy validate [--dir DIR]`: parse and validate the folder against its schema, list its rules.
 * - `soclab policy test [--dir DIR] [--json]`: run the folder's own test table (`tests/*.yaml`); exit 1 on a failure.
 * Load problems (syntax, schema validation, annotations, test-table format) exit 2 with file:line:col.
 */
export function register(program: Command): void {
  const policy = program.command('policy').description('validate and test the authorization policy (Cedar)');

  policy
    .command('validate')
    .description('parse and validate the policy folder against its schema and list its rules')
    .option('--dir <path>', 'policy folder (default: SOCLAB_POLICY_DIR or the bundled policy)')
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const engine = await load(opts.dir);
      const position = (source: string) => {
        const m = /^(.*):(\d+):(\d+)$/.exec(source);
        return { file: m?.[1] ?? source, line: Number(m?.[2] ?? 0) };
      };
      const ordered = [...engine.policies.values()].sort((a, b) => {
        const pa = position(a.source);
        const pb = position(b.source);
        return pa.file === pb.file ? pa.line - pb.line : pa.file < pb.file ? -1 : 1;
      });
      const rules = ordered.map((m) => ({
        id: m.id,
        effect: m.effect,
        decision: m.decision,
        reason: m.reason,
        obligations: m.obligations.map((o) => o.name),
        source: m.source,
      }));
      if (opts.json) {
        printJson({ dir: engine.dir, version: engine.version, digest: engine.digest, rules });
        return;
      }
      const out = (line = '') => process.stdout.write(`${safeText(line)}\n`);
      out(`${c.bold('policy')} ${engine.version}  digest ${engine.digest.slice(0, 16)}  ${engine.dir}`);
      for (const r of rules) {
        const extra = r.obligations.length > 0 ? ` obligations ${r.obligations.join(', ')}` : '';
        out(`  ${r.effect.padEnd(7)} ${r.id.padEnd(34)} ${r.decision.padEnd(23)} ${r.reason}${extra}`);
      }
      out(c.green(`valid: ${rules.length} rules`));
    });

  policy
    .command('test')
    .description("run the policy's own test table (tests/*.yaml in the policy folder)")
    .option('--dir <path>', 'policy folder (default: SOCLAB_POLICY_DIR or the bundled policy)')
    .option('--json', 'machine-readable output')
    .option('--verbose', 'list passing cases too')
    .action(async (opts) => {
      const engine = await load(opts.dir);
      const { loadPolicyTestTable, runPolicyTestTable, PolicyLoadError } = await import(
        '../../control/policy/index.js'
      );
      let cases: ReturnType<typeof loadPolicyTestTable>;
      try {
        cases = loadPolicyTestTable(engine.dir);
      } catch (error) {
        if (error instanceof PolicyLoadError)
          throw new CliError(`invalid policy test table: ${error.message}`, EXIT.usage);
        throw error;
      }
      const report = await runPolicyTestTable(engine, cases, engine.dir);
      if (opts.json) printJson(report);
      else {
        const out = (line = '') => process.stdout.write(`${safeText(line)}\n`);
        for (const r of report.results) {
          if (r.passed) {
            if (opts.verbose)
              out(`${c.green('PASS')} ${r.name}  ${r.actual.outcome} [${r.actual.reason_codes.join(', ')}]`);
            continue;
          }
          out(`${c.red('FAIL')} ${r.name}  ${r.location}`);
          for (const m of r.mismatches) out(`       ${m}`);
          if (r.error) out(`       engine: ${r.error}`);
        }
        const summary = `${report.passed} passed, ${report.failed} failed (${report.total} cases; policy ${report.policy_version}, ${engine.dir})`;
        out(report.failed === 0 ? c.green(summary) : c.red(summary));
      }
      if (report.failed > 0) process.exitCode = EXIT.gate;
    });
}

async function load(dir: string | undefined) {
  const { CedarPolicyEngine, PolicyLoadError } = await import('../../control/policy/index.js');
  try {
    return CedarPolicyEngine.load({ dir });
  } catch (error) {
    if (error instanceof PolicyLoadError) throw new CliError(error.message, EXIT.usage);
    throw error;
  }
}
