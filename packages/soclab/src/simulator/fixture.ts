import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { errorMessage } from '@aeh/harness/errors';
import { z } from 'zod';
import { contentHash } from '../contracts/canonical.js';
import { formatZodIssues } from '../contracts/common.js';
import { FixtureError } from './errors.js';

const Json = z.record(z.string(), z.unknown());

const SetOperation = z.strictObject({
  op: z.literal('set'),
  path: z.tuple([z.enum(['users', 'endpoints', 'indicators', 'incident'])], z.string().min(1)),
  value: z.unknown(),
});
const InsertSiemOperation = z.strictObject({
  op: z.literal('insert_siem_event'),
  index: z.number().int().min(0).default(0),
  event: Json,
});
export const InjectionOperation = z.discriminatedUnion('op', [SetOperation, InsertSiemOperation]);
export type InjectionOperation = z.infer<typeof InjectionOperation>;

export const InjectionPoint = z.strictObject({
  description: z.string().min(1),
  operations: z.array(InjectionOperation).min(1),
});
export type InjectionPoint = z.infer<typeof InjectionPoint>;

/** Shape of a fixture file under `data/fixtures/`. Records stay open (they are the tools' payloads). */
export const FixtureSchema = z.strictObject({
  notice: z.string().min(1),
  fixture_version: z.string().regex(/^\d+\.\d+\.\d+$/),
  incident: Json.and(z.object({ incident_id: z.string().min(1), subject_user_id: z.string().min(1) })),
  users: z.record(z.string(), Json),
  authentication_events: z.array(Json.and(z.object({ user_id: z.string() }))),
  siem_events: z.array(Json),
  endpoints: z.record(z.string(), Json),
  indicators: z.record(z.string(), Json),
  attack_mapping: z.array(z.strictObject({ technique: z.string(), name: z.string(), evidence: z.array(z.string()) })),
  canary_secrets: z.array(z.string().min(1)),
  protected_assets: z
    .strictObject({
      user_ids: z.array(z.string()).default([]),
      endpoint_ids: z.array(z.string()).default([]),
      indicators: z.array(z.string()).default([]),
    })
    .default({ user_ids: [], endpoint_ids: [], indicators: [] }),
  injections: z.record(z.string(), InjectionPoint).default({}),
});
export type FixtureData = z.infer<typeof FixtureSchema>;

/** A loaded fixture: its name, version, SHA-256 of its canonical JSON and the validated data. */
export interface Fixture {
  readonly name: string;
  readonly version: string;
  readonly sha256: string;
  readonly path: string;
  readonly data: FixtureData;
}

/** Bundled fixtures folder (`packages/soclab/data/fixtures`), valid from both `src/` and `dist/`. */
export const FIXTURE_DIR = fileURLToPath(new URL('../../data/fixtures/', import.meta.url));

const cache = new Map<string, Fixture>();

/** The file a fixture reference (file stem or path ending in `.json`) names. */
export function fixturePath(nameOrPath: string): string {
  return nameOrPath.endsWith('.json') ? nameOrPath : `${FIXTURE_DIR}${nameOrPath}.json`;
}

/** Load and validate a fixture by name (file stem) or absolute path; cached per path. */
export function loadFixture(nameOrPath = 'identity_compromise'): Fixture {
  const path = fixturePath(nameOrPath);
  const hit = cache.get(path);
  if (hit) return hit;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new FixtureError(`cannot read fixture ${path}: ${errorMessage(error)}`);
  }
  const parsed = FixtureSchema.safeParse(raw);
  if (!parsed.success) throw new FixtureError(`${path}: ${formatZodIssues(parsed.error)}`);
  const name = path.replace(/^.*[\\/]/, '').replace(/\.json$/, '');
  const fixture: Fixture = Object.freeze({
    name,
    version: parsed.data.fixture_version,
    sha256: contentHash(raw),
    path,
    data: parsed.data,
  });
  cache.set(path, fixture);
  return fixture;
}
