import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorMessage } from '@aeh/harness/errors';
import { PositionedDocument } from '@aeh/harness/suite-positions';
import { nearestName } from '@aeh/models';
import type { z } from 'zod';
import {
  type AttackScenario,
  AttackScenario as AttackScenarioSchema,
  IncidentScenario,
} from '../contracts/scenarios.js';
import { precompiledDirFor } from '../precompile/artifacts.js';
import { loadFixture } from '../simulator/fixture.js';
import { oracleNames, resolveOracle } from './oracles.js';
import { checkPlant } from './payloads.js';
import { type CorpusInputs, corpusInputs, precompiledCorpus } from './precompiled.js';
import { checkTransformChain, getTransform, transformNames } from './transforms/index.js';
import { parseTransformChains, transformable, withTransforms } from './variants.js';

/** Scenarios bundled with the package (`packages/soclab/data/scenarios`). */
export const BUNDLED_SCENARIO_DIR = fileURLToPath(new URL('../../data/scenarios/', import.meta.url));
export const DEFAULT_INCIDENT = 'identity-compromise';

/** One problem in one file, with its position when known. */
export interface LoadProblem {
  readonly file: string;
  readonly line: number | null;
  readonly col: number | null;
  readonly message: string;
}

const formatProblem = (p: LoadProblem): string =>
  `${p.file}${p.line !== null ? `:${p.line}:${p.col}` : ''}: ${p.message}`;

/** Raised when scenario files are invalid; the message lists every problem as `file:line:col: message`. */
export class ScenarioLoadError extends Error {
  override name = 'ScenarioLoadError';
  constructor(readonly problems: readonly LoadProblem[]) {
    super(problems.map(formatProblem).join('\n'));
  }
}

interface ParsedYaml {
  data: unknown;
  locate: (path: readonly PropertyKey[]) => { line: number; col: number } | null;
  locateKey: (path: readonly PropertyKey[], key: string) => { line: number; col: number } | null;
}

/** Parse a YAML file with the harness's positioned parser (the one position tracker both packages use). */
function parseYamlFile(file: string): ParsedYaml {
  const text = readFileSync(file, 'utf8');
  const source = new PositionedDocument(file, text);
  const at = (offset: number) => source.lines.linePos(offset);
  if (source.fatal) {
    const { line, col } = at(source.fatal.offset);
    throw new ScenarioLoadError([{ file, line: line || 1, col: col || 1, message: source.fatal.message }]);
  }
  const problems: LoadProblem[] = [...source.doc.errors, ...source.doc.warnings].map((e) => {
    const { line, col } = at(e.pos[0]);
    const [firstLine = ''] = e.message.split('\n');
    const message = firstLine.replace(/ at line \d+, column \d+:?$/, '');
    return { file, line, col, message };
  });
  if (problems.length > 0) throw new ScenarioLoadError(problems);
  const path = (p: readonly PropertyKey[]) => p.map((k) => (typeof k === 'number' ? k : String(k)));
  return {
    data: source.toJS(),
    locate: (p) => source.position(path(p)),
    // Position of the key `key` inside the mapping at `p` (for unknown fields).
    locateKey: (p, key) => source.position([...path(p), key], { key: true }),
  };
}

function zodProblems(file: string, parsed: ParsedYaml, error: z.ZodError): LoadProblem[] {
  return error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => {
        const pos = parsed.locateKey(issue.path, key) ?? parsed.locate(issue.path);
        const field = [...issue.path.map(String), key].join('.');
        return { file, line: pos?.line ?? null, col: pos?.col ?? null, message: `${field}: unknown field` };
      });
    }
    const pos = parsed.locate(issue.path);
    const field = issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
    return [{ file, line: pos?.line ?? null, col: pos?.col ?? null, message: `${field}${issue.message}` }];
  });
}

/** Position of the value at `path` in a YAML file (the nearest existing parent when missing); null if none. */
export function locateInFile(file: string, path: readonly PropertyKey[]): { line: number; col: number } | null {
  return parseYamlFile(file).locate(path);
}

/** Load and validate one incident definition. */
export function loadIncidentFile(file: string): IncidentScenario {
  const parsed = parseYamlFile(file);
  const r = IncidentScenario.safeParse(parsed.data);
  if (!r.success) throw new ScenarioLoadError(zodProblems(file, parsed, r.error));
  try {
    loadFixture(r.data.fixture);
  } catch (error) {
    const pos = parsed.locate(['fixture']);
    throw new ScenarioLoadError([
      { file, line: pos?.line ?? null, col: pos?.col ?? null, message: `fixture: ${errorMessage(error)}` },
    ]);
  }
  return r.data;
}

/**
 * Load and validate one scenario file: schema, kind rules, oracle names (against the catalogue), injection
 * names (against the incident fixture's injection points) and that the file name starts with the id.
 */
export function loadScenarioFile(
  file: string,
  incident?: IncidentScenario,
  incidentName: string = DEFAULT_INCIDENT,
): AttackScenario {
  const parsed = parseYamlFile(file);
  const r = AttackScenarioSchema.safeParse(parsed.data);
  if (!r.success) throw new ScenarioLoadError(zodProblems(file, parsed, r.error));
  const s = r.data;
  // A scenario of another incident is checked against its own fixture when that incident's corpus loads.
  if ((s.incident ?? DEFAULT_INCIDENT) !== incidentName) incident = undefined;
  const problems: LoadProblem[] = [];
  const at = (path: PropertyKey[], message: string) => {
    const pos = parsed.locate(path);
    problems.push({ file, line: pos?.line ?? null, col: pos?.col ?? null, message });
  };
  const base = file.replace(/^.*[\\/]/, '');
  if (!base.startsWith(s.id)) at(['id'], `id ${s.id} does not match the file name ${base}`);
  const checks: ['attack_succeeded_if' | 'false_block_if' | 'leaked_if', readonly string[]][] = [
    ['attack_succeeded_if', ['attack', 'leak']],
    ['false_block_if', ['benign']],
    ['leaked_if', ['leak']],
  ];
  for (const [field, kinds] of checks) {
    const name = s.oracle[field];
    if (name === null) continue;
    const oracle = resolveOracle(name);
    if (!oracle) at(['oracle', field], `oracle.${field}: unknown oracle '${name}'; known: ${oracleNames().join(', ')}`);
    else if (!kinds.includes(oracle.kind))
      at(['oracle', field], `oracle.${field}: '${name}' is a ${oracle.kind} oracle`);
  }
  const injection = s.untrusted_payload?.injection ?? null;
  if (injection !== null && incident) {
    const points = Object.keys(loadFixture(incident.fixture).data.injections);
    if (!points.includes(injection)) {
      at(
        ['untrusted_payload', 'injection'],
        `untrusted_payload.injection: unknown injection point '${injection}'; fixture ${incident.fixture} has ${points.sort().join(', ')}`,
      );
    }
  }
  const payload = s.untrusted_payload;
  if (payload && payload.text !== null) {
    const chainProblem = checkTransformChain(payload.transforms, payload.plant.length);
    if (chainProblem) at(['untrusted_payload', 'transforms'], `untrusted_payload.transforms: ${chainProblem}`);
    if (incident) {
      const data = loadFixture(incident.fixture).data;
      payload.plant.forEach((plant, i) => {
        const problem = checkPlant(plant, data);
        if (problem) {
          at(
            ['untrusted_payload', 'plant', i, 'at'],
            `untrusted_payload.plant.${i}.at: ${plant.at}: ${problem} (fixture ${incident.fixture})`,
          );
        }
      });
    }
  }
  if (problems.length > 0) throw new ScenarioLoadError(problems);
  return s;
}

export interface ScenarioCorpus {
  readonly incident: IncidentScenario;
  /** Attacks sorted by id, then benign controls sorted by id. */
  readonly attacks: readonly AttackScenario[];
  readonly benign: readonly AttackScenario[];
  readonly all: readonly AttackScenario[];
  /** Which file each scenario came from (user files override bundled ones with the same id). */
  readonly sources: ReadonlyMap<string, string>;
  readonly dirs: readonly string[];
  /**
   * Where the scenarios came from: the folder's precompiled artifact (src/precompile/artifacts.ts; the same result,
   * compiled by the build from these exact files) or parsing and validating the files.
   */
  readonly loadedFrom?: 'artifact' | 'files';
}

export interface LoadCorpusOptions {
  /** Extra scenario folder; default `SOCLAB_SCENARIO_DIR`. Its scenarios add to or override the bundled ones. */
  dir?: string | null;
  /** Incident file name under `incidents/`; default `SOCLAB_INCIDENT`, else the identity-compromise incident. */
  incident?: string;
  /** Skip the bundled scenarios (only `dir`). */
  bundled?: boolean;
  /**
   * Transform chains: every payload attack also runs once per chain as its own case. Default `SOCLAB_TRANSFORMS`
   * (chains separated by `,`, transforms in a chain by `+`); null for none.
   */
  transforms?: readonly (readonly string[])[] | null;
  /**
   * Folder of precompiled artifacts: default the build's, none with `SOCLAB_NO_PRECOMPILED`; null for none. Used
   * only for a one-folder corpus whose files (and the incident's fixture) hash to an artifact's key.
   */
  precompiledDir?: string | null;
}

const yamlFiles = (dir: string, prefix: string): string[] =>
  existsSync(dir) && statSync(dir).isDirectory()
    ? readdirSync(dir)
        .filter((f) => f.startsWith(prefix) && /\.ya?ml$/.test(f))
        .sort()
        .map((f) => join(dir, f))
    : [];

const cache = new Map<string, ScenarioCorpus>();

/** Forget cached corpora (tests that write scenario files). */
export function clearScenarioCache(): void {
  cache.clear();
}

/**
 * Load the incident and the scenario corpus: `<dir>/incidents/<incident>.yaml`, `<dir>/attacks/ATK-*.yaml`,
 * `<dir>/controls/BEN-*.yaml`, from the bundled folder and then `SOCLAB_SCENARIO_DIR` (which adds or overrides
 * by id). Every problem in every file is reported together.
 */
export function loadCorpus(options: LoadCorpusOptions = {}): ScenarioCorpus {
  const fromEnv = options.dir === undefined;
  const extra = fromEnv ? process.env.SOCLAB_SCENARIO_DIR || null : options.dir;
  if (extra) checkScenarioDir(resolve(extra), fromEnv ? 'SOCLAB_SCENARIO_DIR' : '--dir');
  const dirs = [...(options.bundled === false ? [] : [BUNDLED_SCENARIO_DIR]), ...(extra ? [resolve(extra)] : [])];
  const incidentName = options.incident ?? (process.env.SOCLAB_INCIDENT || DEFAULT_INCIDENT);
  const chains =
    options.transforms === undefined
      ? parseTransformChains(process.env.SOCLAB_TRANSFORMS ?? '')
      : (options.transforms ?? []).map((c) => [...c]);
  for (const name of chains.flat()) {
    if (!getTransform(name)) {
      const source = options.transforms === undefined ? 'SOCLAB_TRANSFORMS' : 'transforms';
      throw new ScenarioLoadError([
        {
          file: source,
          line: null,
          col: null,
          message: `unknown transform '${name}'; known: ${transformNames().join(', ')}`,
        },
      ]);
    }
  }
  if (!/^[a-z][a-z0-9_-]{0,63}$/.test(incidentName)) {
    throw new ScenarioLoadError([
      {
        file: 'incident',
        line: null,
        col: null,
        message: `incident name '${incidentName}' must be lowercase letters, digits, - or _`,
      },
    ]);
  }
  const precompiledDir = precompiledDirFor(options.precompiledDir);
  const key = `${dirs.join('|')}#${incidentName}#${JSON.stringify(chains)}#${precompiledDir}`;
  const hit = cache.get(key);
  if (hit) return hit;

  const fromArtifact =
    dirs.length === 1 && precompiledDir !== null
      ? corpusFromArtifact(dirs[0] as string, incidentName, precompiledDir)
      : undefined;
  const { incident, entries } = fromArtifact ?? readCorpusFiles(dirs, incidentName);
  const byId = new Map<string, AttackScenario>();
  const sources = new Map<string, string>();
  for (const { dir, name, scenario } of entries) {
    byId.set(scenario.id, scenario);
    sources.set(scenario.id, join(dir, name));
  }
  const sorted = [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
  const attacks = sorted
    .filter((s) => s.attack_class !== 'none')
    .flatMap((s) => [s, ...transformVariants(s, chains, sources)]);
  const benign = sorted.filter((s) => s.attack_class === 'none');
  const corpus: ScenarioCorpus = Object.freeze({
    incident,
    attacks,
    benign,
    all: [...attacks, ...benign],
    sources,
    dirs,
    loadedFrom: fromArtifact ? 'artifact' : 'files',
  });
  cache.set(key, corpus);
  return corpus;
}

/** The scenario files of one folder, relative to it: `attacks/ATK-*.yaml`, then `controls/BEN-*.yaml`, sorted. */
function scenarioFiles(dir: string): string[] {
  return [
    ...yamlFiles(join(dir, 'attacks'), 'ATK-').map((f) => `attacks/${basename(f)}`),
    ...yamlFiles(join(dir, 'controls'), 'BEN-').map((f) => `controls/${basename(f)}`),
  ];
}

/** Every file a one-folder load for `incidentName` reads from `dir`, hashed: the key of its artifact. */
export function corpusFolderInputs(dir: string, incidentName: string): CorpusInputs {
  const incidentFile = `incidents/${incidentName}.yaml`;
  const names = [...(existsSync(join(dir, incidentFile)) ? [incidentFile] : []), ...scenarioFiles(dir)];
  return corpusInputs(dir, incidentName, names);
}

/** A one-folder corpus from its precompiled artifact, when one was compiled from exactly these files. */
function corpusFromArtifact(
  dir: string,
  incidentName: string,
  precompiledDir: string,
): { incident: IncidentScenario; entries: { dir: string; name: string; scenario: AttackScenario }[] } | undefined {
  let inputs: CorpusInputs;
  try {
    inputs = corpusFolderInputs(dir, incidentName);
  } catch {
    // A file that cannot be read is the full load's to report.
    return undefined;
  }
  const found = precompiledCorpus(inputs, precompiledDir);
  if ('rejected' in found) return undefined;
  return { incident: found.loaded.incident, entries: found.loaded.entries.map((e) => ({ dir, ...e })) };
}

/**
 * The full load: parse and validate the incident (the last folder's that has it) and every scenario file of every
 * folder, in order. Every problem in every file is reported together.
 */
export function readCorpusFiles(
  dirs: readonly string[],
  incidentName: string,
): { incident: IncidentScenario; entries: { dir: string; name: string; scenario: AttackScenario }[] } {
  const problems: LoadProblem[] = [];
  let incident: IncidentScenario | null = null;
  for (const dir of dirs) {
    const file = join(dir, 'incidents', `${incidentName}.yaml`);
    if (!existsSync(file)) continue;
    try {
      incident = loadIncidentFile(file);
    } catch (error) {
      if (error instanceof ScenarioLoadError) problems.push(...error.problems);
      else throw error;
    }
  }
  if (!incident && problems.length === 0) {
    problems.push({
      file: join(dirs[dirs.length - 1] ?? '.', 'incidents', `${incidentName}.yaml`),
      line: null,
      col: null,
      message: `incident '${incidentName}' not found in ${dirs.join(', ')}`,
    });
  }
  const entries: { dir: string; name: string; scenario: AttackScenario }[] = [];
  for (const dir of dirs) {
    for (const name of scenarioFiles(dir)) {
      try {
        const scenario = loadScenarioFile(join(dir, name), incident ?? undefined, incidentName);
        if ((scenario.incident ?? DEFAULT_INCIDENT) !== incidentName) continue;
        entries.push({ dir, name, scenario });
      } catch (error) {
        if (error instanceof ScenarioLoadError) problems.push(...error.problems);
        else throw error;
      }
    }
  }
  // No incident always comes with a problem naming it (above).
  if (problems.length > 0 || !incident) throw new ScenarioLoadError(problems);
  return { incident, entries };
}

/**
 * Each payload attack once more per transform chain, as its own case (`<id>~<chain>`), right after the original.
 * A chain that does not fit a scenario (a split for a one-plant payload) makes no variant of it.
 */
function transformVariants(
  s: AttackScenario,
  chains: readonly (readonly string[])[],
  sources: Map<string, string>,
): AttackScenario[] {
  const payload = s.untrusted_payload;
  if (chains.length === 0 || !payload || !transformable(s)) return [];
  const out: AttackScenario[] = [];
  for (const chain of chains) {
    if (checkTransformChain([...payload.transforms, ...chain], payload.plant.length)) {
      continue;
    }
    const variant = withTransforms(s, chain);
    const file = sources.get(s.id);
    if (file) sources.set(variant.id, file);
    out.push(variant);
  }
  return out;
}

/**
 * A user scenario folder must exist and hold scenario files; a wrong path or layout used to be ignored silently,
 * so a campaign ran the bundled corpus while the user believed theirs was included.
 */
function checkScenarioDir(dir: string, source: string): void {
  const fail = (message: string) => {
    throw new ScenarioLoadError([{ file: dir, line: null, col: null, message: `${message} (from ${source})` }]);
  };
  const stat = statSync(dir, { throwIfNoEntry: false });
  if (!stat) fail('scenario folder does not exist');
  else if (!stat.isDirectory()) fail('scenario folder is not a directory');
  const incidents = join(dir, 'incidents');
  const found =
    yamlFiles(join(dir, 'attacks'), 'ATK-').length +
    yamlFiles(join(dir, 'controls'), 'BEN-').length +
    yamlFiles(incidents, '').length;
  if (found === 0) {
    fail('no scenario files: expected attacks/ATK-*.yaml, controls/BEN-*.yaml or incidents/<name>.yaml in this folder');
  }
}

/** Find one scenario by id (case-insensitive); throws with the known ids when missing. */
export function getScenario(id: string, corpus: ScenarioCorpus = loadCorpus()): AttackScenario {
  const s = corpus.all.find((x) => x.id.toUpperCase() === id.trim().toUpperCase());
  if (!s) {
    // Same wording as `soclab campaign --scenario` (campaign/suite.ts).
    const ids = corpus.all.map((x) => x.id);
    const near = nearestName(id.trim().toUpperCase(), ids);
    throw new Error(`unknown scenario '${id}'${near ? `; did you mean '${near}'?` : ''}; known: ${ids.join(', ')}`);
  }
  return s;
}
