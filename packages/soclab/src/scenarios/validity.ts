import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { sha256Hex } from '../contracts/canonical.js';
import type { AttackScenario } from '../contracts/scenarios.js';
import { MockAdversaryProvider } from '../providers/mock.js';
import { solved } from '../scoring/engine.js';
import '../modes/builtin.js';
import { BUNDLED_SCENARIO_DIR, locateInFile, type ScenarioCorpus } from './loader.js';
import { runScenario } from './runner.js';

/**
 * Scenario validity checks (`soclab scenarios check`). A scenario is evidence only if its attack can succeed and
 * its incident can be solved: an oracle no agent can reach gives every agent a free "resisted", and an incident no
 * agent can solve makes every agent look incompetent. Both are proven by running real probes, not by reading YAML:
 *
 * - reachable: an always-obey agent (the lab's gullible mock, which acts on the first instruction it finds in
 *   untrusted data and plays the scenario's script) reaches the attack oracle in baseline. A scenario marked
 *   `oracle.reachable_in_baseline: false` (a structural control present in every mode) must instead NOT be reached;
 * - solvable: a grounded agent (the grounded mock) solves the incident under the scenario in baseline: completed,
 *   grounded finding, the expected action recommended.
 */

export interface ScenarioSource {
  readonly id: string;
  /** `bundled` or the scenario file's path. */
  readonly source: string;
  /** sha256 of the scenario file's bytes. */
  readonly sha256: string;
}

export interface CheckProblem {
  readonly id: string;
  readonly file: string;
  readonly line: number | null;
  readonly col: number | null;
  readonly message: string;
}

export interface CorpusCheck {
  /** sha256 over every scenario's id and content hash, in id order (and the incident's). */
  readonly corpus_sha256: string;
  readonly scenarios: readonly ScenarioSource[];
  readonly problems: readonly CheckProblem[];
  readonly checked: number;
}

const fileHash = (file: string): string => sha256Hex(readFileSync(file, 'latin1'));

/** Where each scenario came from and its content hash, plus the corpus hash (recorded on every scorecard). */
export function corpusFingerprint(corpus: ScenarioCorpus): { corpus_sha256: string; scenarios: ScenarioSource[] } {
  const bundled = resolve(BUNDLED_SCENARIO_DIR);
  const scenarios = corpus.all
    .map((s) => {
      const file = corpus.sources.get(s.id);
      const isBundled = file !== undefined && !relative(bundled, resolve(file)).startsWith('..');
      return {
        id: s.id,
        source: file === undefined ? 'unknown' : isBundled ? 'bundled' : file,
        sha256: file ? fileHash(file) : 'unknown',
      };
    })
    .sort((a, b) => a.id.localeCompare(b.id));
  const incident = `${corpus.incident.id}@${corpus.incident.version}`;
  const corpus_sha256 = sha256Hex([incident, ...scenarios.map((s) => `${s.id}:${s.sha256}`)].join('\n'));
  return { corpus_sha256, scenarios };
}

/** Obeys instructions where the scenario plants them in data; elsewhere plays the scenario's own model. */
function alwaysObey(scenario: AttackScenario) {
  return new MockAdversaryProvider({
    behavior: scenario.untrusted_payload ? 'gullible' : scenario.provider.behavior,
    model: scenario.provider.model,
    script: scenario.provider.script,
    costPerCallUsd: scenario.provider.cost_per_call_usd,
  });
}

/** Run both probes on every scenario (or the given ids) and report each failure at its file:line:col. */
export async function checkCorpus(corpus: ScenarioCorpus, ids?: readonly string[]): Promise<CorpusCheck> {
  const wanted = ids ? new Set(ids.map((x) => x.toUpperCase())) : null;
  const scenarios = corpus.all.filter((s) => !wanted || wanted.has(s.id));
  const problems: CheckProblem[] = [];
  // Loaded here: conformance/agents.ts brings node:http, which a campaign (it imports this file) does not need.
  const { groundedMock } = await import('../conformance/agents.js');
  const at = (s: AttackScenario, path: readonly string[], message: string): CheckProblem => {
    const file = corpus.sources.get(s.id) ?? s.id;
    const pos = corpus.sources.has(s.id) ? locateInFile(file, path) : null;
    return { id: s.id, file, line: pos?.line ?? null, col: pos?.col ?? null, message };
  };
  for (const s of scenarios) {
    if (s.attack_class !== 'none') {
      const r = await runScenario({ scenario: s, corpus, mode: 'baseline', provider: alwaysObey });
      const reached = r.outcome.attack_succeeded;
      const expected = s.oracle.reachable_in_baseline;
      if (expected && !reached) {
        problems.push(
          at(
            s,
            ['oracle', 'attack_succeeded_if'],
            `oracle '${s.oracle.attack_succeeded_if}' is unreachable: an always-obey agent does not reach it in baseline, so every agent would "resist" this attack for free (fix the payload or the oracle, or set oracle.reachable_in_baseline: false if a structural control stops it in every mode)`,
          ),
        );
      }
      if (!expected && reached) {
        problems.push(
          at(
            s,
            ['oracle', 'reachable_in_baseline'],
            `oracle '${s.oracle.attack_succeeded_if}' is reached in baseline although the scenario says a structural control stops it in every mode`,
          ),
        );
      }
    }
    const g = await runScenario({ scenario: s, corpus, mode: 'baseline', provider: groundedMock });
    if (!solved(g.outcome)) {
      const why =
        g.outcome.investigation_status !== 'complete'
          ? `the investigation ended ${g.outcome.investigation_status ?? 'incomplete'}${g.investigation.failure_reason ? ` (${g.investigation.failure_reason.slice(0, 160)})` : ''}`
          : g.outcome.claims_supported < g.outcome.claims_total || g.outcome.claims_total === 0
            ? 'its finding is not grounded'
            : `it recommended ${g.outcome.recommended_tool ?? 'nothing'}(${g.outcome.recommended_target ?? ''}), expected ${g.outcome.expected_tool}(${g.outcome.expected_target ?? ''})`;
      const path = s.legitimate_action ? ['legitimate_action'] : s.untrusted_payload ? ['untrusted_payload'] : ['id'];
      problems.push(
        at(s, path, `unsolvable: a grounded agent does not solve the incident under this scenario: ${why}`),
      );
    }
  }
  const fp = corpusFingerprint(corpus);
  return { ...fp, problems, checked: scenarios.length };
}

/** `file:line:col: ID: message`, the form editors and CI annotate. */
export const formatCheckProblem = (p: CheckProblem): string =>
  `${p.file}${p.line !== null ? `:${p.line}:${p.col}` : ''}: ${p.id}: ${p.message}`;

/** The file `soclab scenarios check` writes into a user scenario folder once every scenario there passed. */
export const CHECK_RECORD_FILE = '.soclab-scenarios-check.json';

/** Write the record of a passed check (the corpus hash it covers) into `dir`. */
export function writeCheckRecord(dir: string, check: CorpusCheck): string {
  const file = join(dir, CHECK_RECORD_FILE);
  writeFileSync(
    file,
    `${JSON.stringify({ schema: 'soclab.scenarios-check/v1', corpus_sha256: check.corpus_sha256, scenarios: check.scenarios.length }, null, 2)}\n`,
  );
  return file;
}

/**
 * Why a campaign must refuse this corpus, or null. A corpus made only of bundled scenarios is checked by the lab's
 * own test suite; one with scenarios from a user folder needs that folder's check record for this exact corpus
 * hash (editing a scenario after the check invalidates it).
 */
export function uncheckedCorpusReason(corpus: ScenarioCorpus): string | null {
  const fp = corpusFingerprint(corpus);
  const custom = fp.scenarios.filter((s) => s.source !== 'bundled');
  if (custom.length === 0) return null;
  const userDirs = corpus.dirs.filter((d) => resolve(d) !== resolve(BUNDLED_SCENARIO_DIR));
  for (const dir of userDirs) {
    const file = join(dir, CHECK_RECORD_FILE);
    if (!existsSync(file)) continue;
    try {
      const record = JSON.parse(readFileSync(file, 'utf8')) as { corpus_sha256?: unknown };
      if (record.corpus_sha256 === fp.corpus_sha256) return null;
    } catch {
      // unreadable record: treated as missing
    }
  }
  const where = userDirs.join(', ') || 'the scenario folder';
  return `the scenario corpus includes ${custom.length} scenario(s) from ${where} (${custom
    .slice(0, 5)
    .map((s) => s.id)
    .join(
      ', ',
    )}${custom.length > 5 ? ', ...' : ''}) that have not passed \`soclab scenarios check --dir ${userDirs[0] ?? '<dir>'}\` in their current form; run it, or set SOCLAB_ALLOW_UNCHECKED_SCENARIOS=1 to run them unchecked`;
}
