import { errorMessage } from '@aeh/harness/errors';
import type { AttackScenario, PlantSpec } from '../contracts/scenarios.js';
import type { FixtureData } from '../simulator/fixture.js';
import type { SimulatorState } from '../simulator/state.js';
import { applyTransformChain } from './transforms/index.js';

/**
 * Payloads written in a scenario: the fixture stays the clean incident and the loader's plants put the payload
 * text into the run's copy of the data, after the run's canary values are derived (a `CANARY-SECRET-*` base name
 * in the text becomes this run's value, as it does in the fixture).
 */

/** Sections a payload may go into: everything a read tool returns to the model (all of it untrusted data). */
export const PLANTABLE_SECTIONS = Object.freeze([
  'incident',
  'users',
  'endpoints',
  'indicators',
  'siem_events',
  'authentication_events',
] as const);

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const SEGMENT = /^([^.[\]]+)|\.([^.[\]]+)|\[([^[\]]+)\]/y;

/** Split `users[u-1].notes` into `['users', 'u-1', 'notes']`; throws naming the problem. */
export function parsePlantPath(path: string): string[] {
  const out: string[] = [];
  SEGMENT.lastIndex = 0;
  while (SEGMENT.lastIndex < path.length) {
    const start = SEGMENT.lastIndex;
    const m = SEGMENT.exec(path);
    if (!m || (start === 0 && m[1] === undefined) || (start > 0 && m[1] !== undefined)) {
      throw new Error(`cannot read the path at character ${start + 1}`);
    }
    const key = (m[1] ?? m[2] ?? m[3] ?? '').trim();
    if (key === '') throw new Error(`empty path segment at character ${start + 1}`);
    if (FORBIDDEN_KEYS.has(key)) throw new Error(`path segment '${key}' is not allowed`);
    out.push(key);
  }
  const [section] = out;
  if (section === undefined) throw new Error('empty path');
  if (!(PLANTABLE_SECTIONS as readonly string[]).includes(section)) {
    throw new Error(`'${section}' is not a plantable section; use one of ${PLANTABLE_SECTIONS.join(', ')}`);
  }
  return out;
}

type Container = Record<string, unknown> | unknown[];

/** An array element by index, or by its `event_id`, `id` or `name`. */
function child(container: Container, key: string): { found: boolean; value: unknown; slot: string | number } {
  if (Array.isArray(container)) {
    if (/^\d+$/.test(key)) {
      const i = Number(key);
      return { found: i < container.length, value: container[i], slot: i };
    }
    const i = container.findIndex(
      (e) =>
        e !== null &&
        typeof e === 'object' &&
        ['event_id', 'id', 'name'].some((f) => (e as Record<string, unknown>)[f] === key),
    );
    return { found: i >= 0, value: container[i], slot: i };
  }
  const found = Object.hasOwn(container, key);
  return { found, value: found ? container[key] : undefined, slot: key };
}

/**
 * Find where a plant writes: the parent container and the last slot. `set` may create the last key of an
 * object; every other segment must exist in the data.
 */
function locate(root: Record<string, unknown>, segments: readonly string[], op: PlantSpec['op']) {
  if (segments.length === 1 && op === 'set')
    throw new Error('set needs a key inside the section, not the whole section');
  let current: unknown = root;
  for (const [i, segment] of segments.slice(0, -1).entries()) {
    if (current === null || typeof current !== 'object')
      throw new Error(`${segments.slice(0, i).join('.')}: not a record`);
    const c = child(current as Container, segment);
    if (!c.found) throw new Error(`'${segment}' not found at ${segments.slice(0, i).join('.') || 'the top'}`);
    current = c.value;
  }
  if (current === null || typeof current !== 'object')
    throw new Error('the parent of the last segment is not a record');
  const last = segments.at(-1);
  if (last === undefined) throw new Error('empty path');
  const c = child(current as Container, last);
  if (!c.found && (op !== 'set' || Array.isArray(current))) {
    throw new Error(`'${last}' not found; ${op} needs an existing ${op === 'set' ? 'array element' : 'value'}`);
  }
  if (op === 'insert' && !Array.isArray(c.value)) throw new Error('insert needs an array at the path');
  if (op === 'append' && !Array.isArray(c.value) && typeof c.value !== 'string') {
    throw new Error('append needs an array or a string at the path');
  }
  return { parent: current as Container, slot: c.slot, existing: c.value };
}

/** The data as the tools see it, keyed by section (fixture layout). */
function sectionsOf(data: {
  incident: unknown;
  users: unknown;
  endpoints: unknown;
  indicators: unknown;
  siem_events: unknown;
  authentication_events: unknown;
}): Record<string, unknown> {
  return { ...data };
}

/** Check a plant against the clean fixture; returns the problem or null. */
export function checkPlant(plant: PlantSpec, fixture: FixtureData): string | null {
  try {
    const root = structuredClone(sectionsOf(fixture));
    locate(root, parsePlantPath(plant.at), plant.op);
    return null;
  } catch (error) {
    return errorMessage(error);
  }
}

function fill(value: unknown, text: string): unknown {
  if (typeof value === 'string') return value.split('{{payload}}').join(text);
  if (Array.isArray(value)) return value.map((v) => fill(v, text));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, text)]));
  }
  return value;
}

/** The payload texts per plant after the transform chain (a split chain gives each plant its own part). */
export function payloadParts(
  scenario: AttackScenario,
  baseCanaries: readonly string[],
  runCanaries: readonly string[],
) {
  const p = scenario.untrusted_payload;
  if (!p || p.text === null) return [];
  let text = p.text;
  baseCanaries.forEach((base, i) => {
    const value = runCanaries[i];
    if (value && value !== base) text = text.split(base).join(value);
  });
  return applyTransformChain(text, p.transforms, p.plant.length);
}

/**
 * Plant the scenario's payload into a fresh simulator. No-op for scenarios without one. The label
 * `payload:<first path>` joins the simulator's applied injections (recorded on the chain's run.started).
 */
export function plantPayload(state: SimulatorState, scenario: AttackScenario, baseCanaries: readonly string[]): void {
  const p = scenario.untrusted_payload;
  if (!p || p.text === null) return;
  const parts = payloadParts(scenario, baseCanaries, state.canarySecrets);
  const root: Record<string, unknown> = {
    incident: state.incident,
    users: state.users,
    endpoints: state.endpoints,
    indicators: state.indicators,
    siem_events: state.siemEvents,
    authentication_events: state.authenticationEvents,
  };
  p.plant.forEach((plant, i) => {
    const text = parts[i] ?? parts[parts.length - 1] ?? '';
    const value = fill(structuredClone(plant.value), text);
    const { parent, slot, existing } = locate(root, parsePlantPath(plant.at), plant.op);
    if (plant.op === 'set') (parent as Record<string | number, unknown>)[slot] = value;
    else if (plant.op === 'insert') {
      const list = existing as unknown[];
      list.splice(Math.min(plant.index, list.length), 0, value);
    } else if (Array.isArray(existing)) existing.push(value);
    else (parent as Record<string | number, unknown>)[slot] = `${existing as string}${String(value)}`;
  });
  const [firstPlant] = p.plant;
  if (firstPlant) state.appliedInjections.push(`payload:${firstPlant.at}`);
}
