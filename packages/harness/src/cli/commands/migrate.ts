import type { Command } from '@commander-js/extra-typings';
import { errorMessage } from '../../core/errors.js';
import { CliError, EXIT } from '../common.js';

/** What `migrateSeedText` did: the new text and the field paths it rewrote. */
export interface MigrationResult {
  text: string;
  changed: string[];
  /** Seed options with no equivalent here, each with what to write instead. */
  problems: { path: (string | number)[]; message: string }[];
}

/**
 * Rewrite a seed-format (origin harness) suite in today's format, keeping comments, key order and quoting:
 * `agent.module` / `agent.config` move under `agent.options` (the generic adapter's `module` and `config`),
 * thresholds' `min` / `max` become `minimum` / `maximum`. JSON input gives JSON output.
 */
export async function migrateSeedText(text: string, json: boolean): Promise<MigrationResult> {
  if (json) {
    const { normalizeSeedSuite } = await import('../../suites/seed-format.js');
    const raw: unknown = JSON.parse(text);
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new Error('not a suite: expected a JSON object');
    const { changed, problems } = normalizeSeedSuite(raw as Record<string, unknown>);
    return { text: `${JSON.stringify(raw, null, 2)}\n`, changed, problems };
  }
  const { isMap, isScalar, parseDocument, YAMLMap } = await import('yaml');
  const { normalizeSeedSuite, renameAdapterOptions } = await import('../../suites/seed-format.js');
  const doc = parseDocument(text);
  const [syntaxError] = doc.errors;
  if (syntaxError) throw new Error(syntaxError.message);
  const original = doc.toJS() as unknown;
  const { problems } =
    original && typeof original === 'object' && !Array.isArray(original)
      ? normalizeSeedSuite(structuredClone(original) as Record<string, unknown>)
      : { problems: [] };
  const changed: string[] = [];
  const keyIs = (p: { key: unknown }, k: string) => isScalar(p.key) && p.key.value === k;
  const agent = doc.get('agent', true);
  if (isMap(agent) && !agent.items.some((p) => keyIs(p, 'options'))) {
    const modulePair = agent.items.find((p) => keyIs(p, 'module'));
    const configPair = agent.items.find((p) => keyIs(p, 'config'));
    if (modulePair) {
      // The generic adapter takes both: options: { module, config }. The pairs move with their comments.
      const options = new YAMLMap();
      options.flow = agent.flow;
      options.items.push(modulePair);
      if (configPair && !(isMap(configPair.value) && configPair.value.items.length === 0))
        options.items.push(configPair);
      const at = agent.items.indexOf(modulePair);
      agent.items = agent.items.filter((p) => p !== modulePair && p !== configPair);
      agent.items.splice(Math.min(at, agent.items.length), 0, doc.createPair('options', options));
      const adapter = agent.items.find((p) => keyIs(p, 'adapter'));
      if (!adapter) agent.items.unshift(doc.createPair('adapter', 'generic'));
      else if (isScalar(adapter.value) && adapter.value.value !== 'generic') {
        adapter.value.value = 'generic';
        changed.push('agent.adapter');
      }
      changed.push('agent.options');
    } else if (configPair && isScalar(configPair.key)) {
      configPair.key.value = 'options'; // config maps to the adapter's options; the comment stays on the key
      if (!agent.items.some((p) => keyIs(p, 'adapter'))) agent.items.unshift(doc.createPair('adapter', 'generic'));
      changed.push('agent.options');
      // Options the origin spelled differently (subprocess timeout_seconds, mock responses map...).
      const adapterPair = agent.items.find((p) => keyIs(p, 'adapter'));
      const adapterName = isScalar(adapterPair?.value) ? String(adapterPair.value.value) : 'generic';
      if (isMap(configPair.value)) {
        const opts = configPair.value.toJSON() as Record<string, unknown>;
        const renamed: string[] = [];
        renameAdapterOptions(adapterName, opts, renamed, []);
        if (renamed.length > 0 || Object.keys(opts).length !== configPair.value.items.length) {
          configPair.value = doc.createNode(opts);
          changed.push(...renamed);
        }
      }
    }
  }
  const thresholds = doc.get('thresholds', true);
  if (isMap(thresholds)) {
    for (const t of thresholds.items) {
      if (!isMap(t.value) || !isScalar(t.key)) continue;
      const rule = t.value;
      for (const [short, long] of [
        ['min', 'minimum'],
        ['max', 'maximum'],
      ] as const) {
        const pair = rule.items.find((p) => keyIs(p, short));
        if (!pair || !isScalar(pair.key)) continue;
        if (rule.items.some((p) => keyIs(p, long))) rule.items = rule.items.filter((p) => p !== pair);
        else pair.key.value = long;
        changed.push(`thresholds.${String(t.key.value)}.${long}`);
      }
    }
  }
  return { text: doc.toString({ lineWidth: 0 }), changed, problems };
}

/**
 * `harness migrate <suite>`: rewrite a suite written for the origin harness (the seed's format) in the current
 * format, keeping its comments, then validate the result.
 *
 * @example harness migrate old.yaml --write
 */
export function register(program: Command): void {
  program
    .command('migrate')
    .description("rewrite a seed-format (origin harness) suite in today's format, keeping comments; then validate it")
    .argument('<suite>', 'suite file (.yaml, .yml, .json)')
    .option('-w, --write', 'rewrite the file in place (default: print to stdout)')
    .option('-o, --out <file>', 'write the migrated suite here')
    .action(async (path, opts) => {
      const { existsSync, readFileSync, renameSync, rmSync, writeFileSync } = await import('node:fs');
      const { basename, dirname, join } = await import('node:path');
      if (!existsSync(path)) throw new CliError(`${path}: no such file`, EXIT.usage);
      if (!/\.(ya?ml|json)$/i.test(path)) throw new CliError(`${path}: expected a .yaml, .yml or .json suite`);
      if (opts.write && opts.out) throw new CliError('use --write or --out, not both');
      let result: MigrationResult;
      try {
        result = await migrateSeedText(readFileSync(path, 'utf8'), /\.json$/i.test(path));
      } catch (err) {
        throw new CliError(`${path}: cannot migrate: ${errorMessage(err)}`);
      }
      // Validate next to the original, so relative paths (modules, plugins, case files) resolve the same way.
      const probe = join(
        dirname(path),
        `.${basename(path)}.migrate-${process.pid}${/\.json$/i.test(path) ? '.json' : '.yaml'}`,
      );
      const { loadBuiltins } = await import('../common.js');
      await loadBuiltins();
      const { validateSuite } = await import('../../suites/loader.js');
      const { formatIssue } = await import('../../suites/positions.js');
      writeFileSync(probe, result.text);
      let issues: Awaited<ReturnType<typeof validateSuite>>['issues'];
      try {
        issues = (await validateSuite(probe)).issues;
      } catch (err) {
        rmSync(probe, { force: true });
        throw err;
      }
      const target = opts.write ? path : opts.out;
      const clean = issues.length === 0 && result.problems.length === 0;
      if (target && clean) renameSync(probe, target);
      else rmSync(probe, { force: true });
      if (!target) process.stdout.write(result.text);
      const what = result.changed.length > 0 ? `rewrote ${result.changed.join(', ')}` : 'already in the current format';
      if (result.problems.length > 0) {
        process.stderr.write(`harness: ${path}: ${what}; still to do by hand:\n`);
        for (const p of result.problems) process.stderr.write(`  ${p.path.join('.')}: ${p.message}\n`);
      }
      if (result.problems.length > 0) process.exitCode = EXIT.usage;
      if (issues.length > 0) {
        process.stderr.write(`harness: ${path}: ${what}, but the result is not a valid suite yet:\n`);
        for (const i of issues) process.stderr.write(`  ${formatIssue({ ...i, file: path })}\n`);
        process.exitCode = EXIT.usage;
        return;
      }
      if (clean) process.stderr.write(`harness: ${path}: ${what}${target ? `; written to ${target}` : ''}; valid\n`);
    });
}
