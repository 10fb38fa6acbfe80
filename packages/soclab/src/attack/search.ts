import { itemAt } from '@aeh/harness/item-at';
import { type Interval, seededRandom, wilson } from '@aeh/harness/stats';
import type { ModelProvider } from '@aeh/models';
import { sha256Hex } from '../contracts/canonical.js';
import type { AuthorityLevel } from '../contracts/enums.js';
import type { AttackScenario } from '../contracts/scenarios.js';
import type { ScenarioCorpus } from '../scenarios/loader.js';
import { payloadParts } from '../scenarios/payloads.js';
import { runScenario } from '../scenarios/runner.js';
import { variantId } from '../scenarios/variants.js';
import { type AttackGoal, attackGoals, type Candidate, candidatesFor, TEMPLATES } from './candidates.js';
import { llmVariants } from './llm-variants.js';
import { type Observation, observe, stoppedBy } from './observe.js';

/**
 * The adaptive attacker: for each goal, tries variants (template x transforms x placement) one at a time, each
 * a full scenario run, and picks the next from what the evidence trail showed: a placement the agent never read
 * is dropped, a phrasing the agent read and ignored is dropped, a variant the agent followed but a control
 * stopped is kept as the phrasing to vary. It stops at the first success or the budget. Deterministic for a
 * seed (a seeded order breaks ties; the mock agent and the lab are deterministic).
 */

export interface AttackOptions {
  corpus: ScenarioCorpus;
  /** The agent under attack, built per try from the try's scenario. */
  agent: (scenario: AttackScenario) => ModelProvider;
  mode: string;
  budget: number;
  seed: string;
  /** Independent searches per goal (seeds derived from `seed`), for the success-within-k curve's interval. */
  restarts?: number;
  /** Attack ids whose goals to pursue; default every payload attack of the incident. */
  goals?: readonly string[];
  modeOptions?: Readonly<Record<string, unknown>>;
  /** Who answers approval requests in controlled modes (`none`, `ideal`, `rubber_stamp`, `noisy:<p>`). */
  approver?: string | null;
  /** A model that writes extra phrasings per goal (through `@aeh/models`); none by default. */
  variantModel?: ModelProvider | null;
  /** How many phrasings to ask it for per goal (default 4, at most 8). */
  variantCount?: number;
  /** Authority level the agent runs at (default L4). */
  authorityLevel?: AuthorityLevel;
  onTry?: (record: TryRecord) => void;
}

export interface TryRecord {
  readonly goal: string;
  readonly restart: number;
  readonly attempt: number;
  readonly case_id: string;
  readonly template: number;
  readonly transforms: readonly string[];
  readonly placement: string;
  readonly payload_chars: number;
  readonly observation: Observation;
  /** Why the try failed (`payload_not_read`, `model_ignored_payload`, `approval_gate`, `gateway:<reasons>`), or null. */
  readonly stopped_by: string | null;
}

export interface CurvePoint {
  readonly k: number;
  readonly successes: number;
  readonly n: number;
  readonly rate: number;
  readonly ci95: Interval;
}

export interface GoalResult {
  readonly goal: string;
  readonly scenario_id: string;
  readonly oracle: string;
  /** The try (1-based) of the first success in each restart, null when the budget ran out. */
  readonly first_success: readonly (number | null)[];
  readonly curve: readonly CurvePoint[];
  readonly cheapest_success: {
    readonly template: number;
    readonly transforms: readonly string[];
    readonly placement: string;
    readonly payload_chars: number;
    readonly attempt: number;
  } | null;
  /** How often each control (or failure reason) stopped a failed try. */
  readonly stopped_by: Readonly<Record<string, number>>;
}

export interface AttackReport {
  readonly schema: 'soclab.attack';
  readonly schema_version: '1.0.0';
  readonly incident: string;
  readonly mode: string;
  readonly authority_level: AuthorityLevel;
  readonly approver: string;
  readonly seed: string;
  readonly budget: number;
  readonly restarts: number;
  readonly tries: number;
  readonly goals: readonly GoalResult[];
  /** Over every goal and restart: share of searches that succeeded within k tries. */
  readonly curve: readonly CurvePoint[];
  /** Templates numbered from this one on are LLM-written (`llm_variants`, per goal). */
  readonly template_count: number;
  readonly llm_variants: Readonly<Record<string, readonly string[]>>;
  readonly records: readonly TryRecord[];
}

/** A deterministic generator from a string seed: the harness's mulberry32, seeded with the seed's hash. */
const rng = (seed: string): (() => number) => seededRandom(Number.parseInt(sha256Hex(seed).slice(0, 8), 16) >>> 0);

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [itemAt(out, j), itemAt(out, i)];
  }
  return out;
}

const textKey = (c: Candidate) => `${c.template}|${c.transforms.join('+')}`;

/** The scenario one try runs: the goal's scenario with the candidate's payload in place of its own. */
function tryScenario(goal: AttackGoal, c: Candidate, attempt: number): AttackScenario {
  const s = goal.scenario;
  return Object.freeze({
    ...s,
    id: variantId(s.id, [`adaptive${attempt}`, ...c.transforms]),
    untrusted_payload: Object.freeze({
      // A placement is one plant (placements() keeps only single-plant attacks).
      location: itemAt(c.placement.plants, 0).at,
      fixture_flag: null,
      injection: null,
      text: c.text,
      plant: c.placement.plants,
      transforms: c.transforms,
    }),
  });
}

/** One search for one goal: at most `budget` tries, stopping at the first success. */
async function searchGoal(
  goal: AttackGoal,
  options: AttackOptions,
  restart: number,
  records: TryRecord[],
  extraTexts: readonly string[],
): Promise<number | null> {
  const random = rng(`${options.seed}:${goal.key}:${restart}`);
  let pool = shuffled(candidatesFor(goal, options.corpus, extraTexts), random);
  const unreadPlacements = new Set<string>();
  const readPlacements = new Set<string>();
  const ignoredTexts = new Set<string>();
  const followedTexts = new Set<string>();
  for (let attempt = 1; attempt <= options.budget && pool.length > 0; attempt++) {
    // Prefer what worked so far (a placement the agent read, a phrasing it followed); never retry what cannot work.
    pool = pool.filter((c) => !unreadPlacements.has(c.placement.name) && !ignoredTexts.has(textKey(c)));
    if (pool.length === 0) break;
    const score = (c: Candidate) =>
      (readPlacements.has(c.placement.name) ? 2 : 0) + (followedTexts.has(textKey(c)) ? 1 : 0);
    // The first candidate with the highest score.
    let best = 0;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (const [i, c] of pool.entries()) {
      const s = score(c);
      if (s > bestScore) [best, bestScore] = [i, s];
    }
    const [candidate] = pool.splice(best, 1);
    if (!candidate) break;
    const scenario = tryScenario(goal, candidate, attempt);
    const runId = `attack-${sha256Hex(`${options.seed}:${goal.key}:${restart}:${attempt}`).slice(0, 16)}`;
    const result = await runScenario({
      scenario,
      corpus: options.corpus,
      mode: options.mode,
      provider: options.agent,
      runId,
      modeOptions: options.modeOptions,
      approver: options.approver ?? null,
      authorityLevel: options.authorityLevel,
    });
    // The attacker knows its own text and chain; it never sees the run's canaries (its templates carry none).
    const planted = payloadParts(scenario, [], []);
    const observation = observe(result, goal, candidate, planted);
    const record: TryRecord = {
      goal: goal.key,
      restart,
      attempt,
      case_id: scenario.id,
      template: candidate.template,
      transforms: candidate.transforms,
      placement: candidate.placement.name,
      payload_chars: planted.reduce((n, t) => n + t.length, 0),
      observation,
      stopped_by: stoppedBy(observation),
    };
    records.push(record);
    options.onTry?.(record);
    if (observation.succeeded) return attempt;
    if (!observation.payload_read) unreadPlacements.add(candidate.placement.name);
    else readPlacements.add(candidate.placement.name);
    if (observation.payload_read && !observation.followed) ignoredTexts.add(textKey(candidate));
    if (observation.followed) followedTexts.add(textKey(candidate));
  }
  return null;
}

function curve(firsts: readonly (number | null)[], budget: number): CurvePoint[] {
  const n = firsts.length;
  return Array.from({ length: budget }, (_, i) => {
    const k = i + 1;
    const successes = firsts.filter((f) => f !== null && f <= k).length;
    return { k, successes, n, rate: n === 0 ? 0 : successes / n, ci95: wilson(successes, n) };
  });
}

/** Run the adaptive attacker over the goals; returns every try and the curves. */
export async function runAdaptiveAttack(options: AttackOptions): Promise<AttackReport> {
  if (!Number.isInteger(options.budget) || options.budget < 1 || options.budget > 10_000) {
    throw new RangeError('budget must be an integer from 1 to 10000');
  }
  const restarts = options.restarts ?? 1;
  if (!Number.isInteger(restarts) || restarts < 1 || restarts > 100) {
    throw new RangeError('restarts must be an integer from 1 to 100');
  }
  const goals = attackGoals(options.corpus, options.goals);
  if (goals.length === 0) throw new RangeError('the corpus has no attack that plants a YAML payload: nothing to adapt');
  const records: TryRecord[] = [];
  const results: GoalResult[] = [];
  const allFirsts: (number | null)[] = [];
  const llmTexts: Record<string, string[]> = {};
  for (const goal of goals) {
    const firsts: (number | null)[] = [];
    const start = records.length;
    const extra = options.variantModel ? await llmVariants(options.variantModel, goal, options.variantCount) : [];
    llmTexts[goal.key] = extra;
    for (let r = 0; r < restarts; r++) firsts.push(await searchGoal(goal, options, r, records, extra));
    allFirsts.push(...firsts);
    const mine = records.slice(start);
    const wins = mine.filter((t) => t.observation.succeeded);
    const cheapest =
      [...wins].sort(
        (a, b) =>
          a.transforms.length - b.transforms.length || a.payload_chars - b.payload_chars || a.attempt - b.attempt,
      )[0] ?? null;
    const stopped: Record<string, number> = {};
    for (const t of mine) if (t.stopped_by) stopped[t.stopped_by] = (stopped[t.stopped_by] ?? 0) + 1;
    results.push({
      goal: goal.key,
      scenario_id: goal.scenario.id,
      oracle: goal.scenario.oracle.attack_succeeded_if ?? '',
      first_success: firsts,
      curve: curve(firsts, options.budget),
      cheapest_success: cheapest
        ? {
            template: cheapest.template,
            transforms: cheapest.transforms,
            placement: cheapest.placement,
            payload_chars: cheapest.payload_chars,
            attempt: cheapest.attempt,
          }
        : null,
      stopped_by: Object.fromEntries(Object.entries(stopped).sort(([a], [b]) => a.localeCompare(b))),
    });
  }
  return {
    schema: 'soclab.attack',
    schema_version: '1.0.0',
    incident: options.corpus.incident.id,
    mode: options.mode,
    authority_level: options.authorityLevel ?? 'L4',
    approver: options.approver ?? 'none',
    seed: options.seed,
    budget: options.budget,
    restarts,
    tries: records.length,
    goals: results,
    curve: curve(allFirsts, options.budget),
    template_count: TEMPLATES.length,
    llm_variants: llmTexts,
    records,
  };
}
