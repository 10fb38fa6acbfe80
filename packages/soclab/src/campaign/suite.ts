import type { MetricSpec, SuiteLike, TestCase } from '@aeh/harness';
import { nearestName } from '@aeh/models';
import type { CorpusEntry } from '../contracts/campaign.js';
import { canonicalJson, sha256Hex } from '../contracts/canonical.js';
import { type AttackScenario, isBenign, needsMock } from '../contracts/scenarios.js';
import type { ScenarioCorpus } from '../scenarios/loader.js';
import { ATTACK_EVALUATORS, BENIGN_EVALUATORS } from './evaluators/index.js';
import { SOCLAB_METRICS } from './metrics/index.js';

/** Name of the harness suite a campaign runs: the same for every mode, so `harness compare` pairs the cases. */
export const suiteName = (corpus: ScenarioCorpus): string => `soclab ${corpus.incident.id.toLowerCase()}`;

/** The corpus entry of a scenario (family, difficulty, benign flag) for scoring. */
export const corpusEntry = (s: AttackScenario): CorpusEntry => ({
  scenario_id: s.id,
  family: s.family,
  difficulty: s.difficulty,
  benign: isBenign(s),
});

export interface CorpusSelection {
  /** Applicable scenarios (attacks then benign controls) after the provider filter, before `--scenario`. */
  applicable: AttackScenario[];
  /** What runs: the applicable scenarios, narrowed by `--scenario`, in corpus order. */
  selected: AttackScenario[];
  /** Scenarios left out because the provider is live and they script the model's replies. */
  skipped: { scenario_id: string; reason: string }[];
}

/**
 * Choose what a campaign runs. Live providers run only the scenarios whose attack lives in the fixture or the
 * run-level attacks (a scenario that scripts the model's replies needs the mock). `scenarioIds` narrows the
 * selection; an id outside the corpus is an error, one the provider cannot run is reported as skipped.
 */
export function selectScenarios(
  corpus: ScenarioCorpus,
  options: { live: boolean; scenarioIds?: readonly string[] | null },
): CorpusSelection {
  const skipped: CorpusSelection['skipped'] = [];
  const applicable: AttackScenario[] = [];
  for (const s of corpus.all) {
    if (options.live && needsMock(s)) {
      skipped.push({ scenario_id: s.id, reason: "scripts the model's replies (runs only with the mock provider)" });
    } else {
      applicable.push(s);
    }
  }
  let selected = applicable;
  if (options.scenarioIds && options.scenarioIds.length > 0) {
    const wanted = new Set<string>();
    for (const raw of options.scenarioIds) {
      const id = raw.trim().toUpperCase();
      if (!corpus.all.some((s) => s.id === id)) {
        const near = nearestName(
          id,
          corpus.all.map((s) => s.id),
        );
        throw new RangeError(
          `unknown scenario '${raw}'${near ? `; did you mean '${near}'?` : ''}; known: ${corpus.all.map((s) => s.id).join(', ')}`,
        );
      }
      wanted.add(id);
    }
    selected = applicable.filter((s) => wanted.has(s.id));
    for (const s of applicable) {
      if (!wanted.has(s.id)) skipped.push({ scenario_id: s.id, reason: 'not selected (--scenario)' });
    }
    skipped.sort((a, b) => a.scenario_id.localeCompare(b.scenario_id));
  }
  if (selected.length === 0) throw new RangeError('no scenarios applicable to this provider');
  return { applicable, selected, skipped };
}

/** One harness case per scenario: input `{ scenario: id }`, the oracle evaluators, tags for slicing. */
export function scenarioCase(s: AttackScenario): TestCase {
  const benign = isBenign(s);
  return {
    id: s.id,
    name: s.title,
    description: s.description,
    input: { scenario: s.id },
    evaluators: (benign ? BENIGN_EVALUATORS : ATTACK_EVALUATORS).map((name) => ({ name, options: {}, weight: 1 })),
    tags: [benign ? 'benign' : 'attack', s.family, `difficulty:${s.difficulty}`, `class:${s.attack_class}`],
    metadata: {
      version: s.version,
      family: s.family,
      difficulty: s.difficulty,
      attack_class: s.attack_class,
      expected_control: s.expected_control,
      atlas: s.atlas.map((a) => a.id),
      owasp_llm: s.owasp_llm.map((o) => o.id),
      needs_mock: needsMock(s),
    },
    timeout: null,
    repeat: null,
    vars: {},
  };
}

/** The campaign as a harness suite: the selected scenarios, soclab evaluators per case and the soclab metrics. */
export function campaignSuite(
  corpus: ScenarioCorpus,
  selection: CorpusSelection,
  agent: SuiteLike['agent'],
): SuiteLike {
  const scoringCorpus = selection.applicable.map(corpusEntry);
  const metrics: MetricSpec[] = SOCLAB_METRICS.map((name) => ({ name, options: { corpus: scoringCorpus } }));
  const contentHash = sha256Hex(
    canonicalJson({
      incident: [corpus.incident.id, corpus.incident.version],
      scenarios: selection.selected.map((s) => [s.id, s.version]),
    }),
  );
  const cases = selection.selected.map(scenarioCase);
  return {
    name: suiteName(corpus),
    version: corpus.incident.version,
    description: `${corpus.incident.title}: ${selection.selected.length} scenarios of the soclab corpus`,
    baseDir: process.cwd(),
    contentHash,
    totalCases: cases.length,
    agent,
    evaluators: [],
    metrics: [...metrics, 'success_rate'],
    // soclab's story is attack success, not the harness pass rate (a resisted attack is a "failed" case there).
    headline: 'soclab_attack_success_rate',
    thresholds: {},
    cases: () => cases,
    plannedRuns: (repeat) => cases.length * repeat,
  };
}
