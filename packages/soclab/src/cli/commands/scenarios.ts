import { errorMessage } from '@aeh/harness/errors';
import type { Command } from '@commander-js/extra-typings';
import { CliError, c, EXIT, printJson, table } from '../common.js';

/** `soclab scenarios [ID]`: the corpus as a table, or one scenario in full. */
export function register(program: Command): void {
  program
    .command('scenarios')
    .description('list the scenario corpus (bundled plus SOCLAB_SCENARIO_DIR), or show one scenario')
    .argument('[id]', 'show one scenario in full (e.g. ATK-001)')
    .option('--json', 'machine-readable output')
    .option('--dir <path>', 'extra scenario folder (default: SOCLAB_SCENARIO_DIR)')
    .action(async (id, opts) => {
      const { loadCorpus, getScenario, ScenarioLoadError } = await import('../../scenarios/loader.js');
      const { needsMock } = await import('../../contracts/scenarios.js');
      let corpus: ReturnType<typeof loadCorpus>;
      try {
        corpus = loadCorpus(opts.dir !== undefined ? { dir: opts.dir } : {});
      } catch (error) {
        if (error instanceof ScenarioLoadError) throw new CliError(`invalid scenarios:\n${error.message}`, EXIT.usage);
        throw error;
      }
      if (id) {
        let s: ReturnType<typeof getScenario>;
        try {
          s = getScenario(id, corpus);
        } catch (error) {
          throw new CliError(errorMessage(error), EXIT.usage);
        }
        if (opts.json) return printJson({ ...s, source: corpus.sources.get(s.id) });
        process.stdout.write(`${c.bold(`${s.id} ${s.title}`)} (version ${s.version})\n`);
        process.stdout.write(`${s.description}\n\n`);
        const rows: [string, string][] = [
          ['class', s.attack_class],
          ['family / difficulty', `${s.family} / ${s.difficulty}`],
          ['ATLAS', s.atlas.map((a) => `${a.id} ${a.name}`).join('; ') || '-'],
          ['OWASP LLM', s.owasp_llm.map((o) => `${o.id} ${o.name}`).join('; ') || '-'],
          ['attack lives in', where(s)],
          ['mock behaviour', s.provider.behavior],
          ['oracle', s.oracle.attack_succeeded_if ?? s.oracle.false_block_if ?? '-'],
          ['expected control', s.expected_control],
          ['runs against live models', needsMock(s) ? 'no (needs the scripted mock)' : 'yes'],
          ['source', corpus.sources.get(s.id) ?? '-'],
        ];
        for (const [k, v] of rows) process.stdout.write(`  ${c.dim(k.padEnd(26))}${v}\n`);
        return;
      }
      if (opts.json) {
        return printJson({
          incident: corpus.incident,
          scenarios: corpus.all.map((s) => ({
            id: s.id,
            version: s.version,
            title: s.title,
            attack_class: s.attack_class,
            family: s.family,
            difficulty: s.difficulty,
            expected_control: s.expected_control,
            oracle: s.oracle.attack_succeeded_if ?? s.oracle.false_block_if,
            needs_mock: needsMock(s),
            source: corpus.sources.get(s.id),
          })),
        });
      }
      const t = table(['id', 'title', 'family', 'difficulty', 'attack lives in', 'oracle', 'expected control']);
      for (const s of corpus.all) {
        t.push([
          s.id,
          s.title.length > 48 ? `${s.title.slice(0, 47)}…` : s.title,
          s.family.replace(/_/g, ' '),
          s.difficulty,
          where(s),
          s.oracle.attack_succeeded_if ?? s.oracle.false_block_if ?? '-',
          s.expected_control,
        ]);
      }
      process.stdout.write(`${t.toString()}\n`);
      process.stdout.write(
        `${corpus.attacks.length} attacks, ${corpus.benign.length} benign controls; incident ${corpus.incident.id} (${corpus.incident.title})\n`,
      );
    });
}

function where(s: {
  untrusted_payload: {
    injection: string | null;
    location: string;
    text: string | null;
    plant: readonly { at: string }[];
    transforms: readonly string[];
  } | null;
  provider: { script: Readonly<Record<string, unknown>>; model: string; cost_per_call_usd: number };
  harness: Readonly<Record<string, boolean>>;
  limits: { max_calls: number | null; max_cost_usd: number | null };
}): string {
  if (s.untrusted_payload?.injection) return `injection ${s.untrusted_payload.injection}`;
  if (s.untrusted_payload?.text) {
    const chain = s.untrusted_payload.transforms.length > 0 ? ` via ${s.untrusted_payload.transforms.join('+')}` : '';
    return `payload ${s.untrusted_payload.plant.map((p) => p.at).join(' + ')}${chain}`;
  }
  if (s.untrusted_payload) return `fixture ${s.untrusted_payload.location}`;
  const stages = Object.keys(s.provider.script);
  if (stages.length > 0) return `script ${stages.join(', ')}`;
  const harness = Object.entries(s.harness)
    .filter(([, v]) => v)
    .map(([k]) => k);
  if (harness.length > 0) return `run ${harness.join(', ')}`;
  if (s.provider.cost_per_call_usd > 0) return 'provider cost';
  if (s.provider.model !== 'mock-investigator-v1') return `model ${s.provider.model}`;
  if (s.limits.max_calls !== null || s.limits.max_cost_usd !== null) return 'scenario limits';
  return 'grounded run';
}
