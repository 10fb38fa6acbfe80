import { basename, join } from 'node:path';
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import { z } from 'zod';
import { IDENTIFIER_PATTERN } from '../../contracts/common.js';
import { Obligation } from '../../contracts/decisions.js';
import {
  type ArtifactRejection,
  encodeArtifact,
  openArtifact,
  PRECOMPILED_FORMAT,
  precompiledDebug,
  sameKey,
  staleBuildArtifact,
} from '../../precompile/artifacts.js';
import { soclabVersion } from '../../version.js';
import type { PolicyMeta } from './cedar-engine.js';
import { COUNTED_LIMITS, type CountedLimit } from './compared-limits.js';
import type { PolicyFolder } from './folder.js';

/** A policy folder compiled and validated: what the engine needs besides Cedar's per-process preparsing. */
export interface CompiledPolicyFolder {
  metas: Map<string, PolicyMeta>;
  texts: Record<string, string>;
  /** The schema in Cedar's JSON form (or the text when it does not convert), for every later call. */
  schema: cedar.Schema;
  /** Run counters the policies only compare with their maxima, so requests may carry 0, max or max+1 instead. */
  comparedCounters: CountedLimit[];
}

/**
 * Everything a compiled folder depends on besides this code: the folder's content digest (every file, by name), the
 * Cedar build that validated it, the soclab version and the artifact format.
 */
export function policyArtifactKey(folder: PolicyFolder): Record<string, unknown> {
  return {
    format: PRECOMPILED_FORMAT,
    soclab: soclabVersion(),
    cedar: cedar.getCedarSDKVersion(),
    folder: folder.digest,
  };
}

/** A policy's position, kept relative to its folder so the artifact serves the same files in any folder. */
const StoredPolicy = z.strictObject({
  id: z.string().regex(IDENTIFIER_PATTERN),
  effect: z.enum(['permit', 'forbid']),
  decision: z.enum(['allow', 'allow_with_obligations', 'require_approval', 'deny']),
  reason: z.string().regex(IDENTIFIER_PATTERN),
  obligations: z.array(Obligation),
  file: z.string().regex(/^[^/\\]+\.cedar$/),
  line: z.number().int().min(1),
  col: z.number().int().min(1),
  text: z.string().min(1),
});

const PolicyPayload = z.strictObject({
  schema: z.union([z.string(), z.record(z.string(), z.unknown())]),
  policies: z.array(StoredPolicy),
  compared_counters: z.array(z.enum(COUNTED_LIMITS as [CountedLimit, ...CountedLimit[]])),
});
type PolicyPayload = z.infer<typeof PolicyPayload>;

/** The artifact text of a folder compiled by `compilePolicyFolder` (the build step). */
export function encodePolicyArtifact(folder: PolicyFolder, compiled: CompiledPolicyFolder): string {
  const policies = [...compiled.metas.values()].map((meta) => {
    const file = folder.policies.find((f) => meta.source.startsWith(`${f.path}:`));
    const at = file ? /^(\d+):(\d+)$/.exec(meta.source.slice(file.path.length + 1)) : null;
    const text = compiled.texts[meta.id];
    if (!file || !at || text === undefined)
      throw new Error(`policy ${meta.id}: cannot store its source ${meta.source}`);
    return {
      id: meta.id,
      effect: meta.effect,
      decision: meta.decision,
      reason: meta.reason,
      obligations: meta.obligations,
      file: basename(file.path),
      line: Number(at[1]),
      col: Number(at[2]),
      text,
    };
  });
  const payload: PolicyPayload = {
    schema: compiled.schema as PolicyPayload['schema'],
    policies,
    compared_counters: compiled.comparedCounters,
  };
  return encodeArtifact('policies', policyArtifactKey(folder), payload);
}

/**
 * The compiled form of `folder` from its artifact in `dir`, or why there is none. Used only when the artifact's key
 * is exactly this folder's (its digest, this Cedar build, this soclab version and format).
 */
export function precompiledPolicyFolder(
  folder: PolicyFolder,
  dir: string,
): { compiled: CompiledPolicyFolder; file: string } | ArtifactRejection {
  const opened = openArtifact(dir, 'policies', folder.digest);
  const reject = (rejected: string): ArtifactRejection => {
    precompiledDebug('policies %s: full load (%s)', folder.dir, rejected);
    return { rejected };
  };
  if ('rejected' in opened) return reject(opened.rejected);
  if (!sameKey(opened.key, policyArtifactKey(folder))) return reject(`${opened.file}: key differs`);
  if (staleBuildArtifact(dir, opened.file)) return reject(`${opened.file} is older than the build`);
  const payload = PolicyPayload.safeParse(opened.payload);
  if (!payload.success) return reject(`${opened.file}: payload has the wrong shape`);
  const metas = new Map<string, PolicyMeta>();
  const texts: Record<string, string> = {};
  // The validated payload's own objects (zod's output would rebuild them in its key order): a meta serializes
  // exactly as the full load's.
  const stored = (opened.payload as PolicyPayload).policies;
  for (const p of stored) {
    // The folder's own file names only (the digest covers them): a position never points outside it.
    if (!folder.policies.some((f) => basename(f.path) === p.file) || metas.has(p.id)) {
      return reject(`${opened.file}: payload names a policy file or id it cannot`);
    }
    const effectFits = p.effect === 'forbid' ? p.decision === 'deny' : p.decision !== 'deny';
    if (!effectFits) return reject(`${opened.file}: policy ${p.id} has a decision its effect cannot`);
    const source = `${join(folder.dir, p.file)}:${p.line}:${p.col}`;
    // Built in the order readAnnotations builds them.
    const { id, reason, obligations } = p;
    metas.set(
      id,
      p.effect === 'forbid'
        ? { id, effect: 'forbid', decision: 'deny', reason, obligations, source }
        : { id, effect: 'permit', decision: p.decision, reason, obligations, source },
    );
    texts[id] = p.text;
  }
  if (metas.size === 0) return reject(`${opened.file}: payload has no policies`);
  precompiledDebug('policies %s: from %s', folder.dir, opened.file);
  return {
    compiled: {
      metas,
      texts,
      schema: (opened.payload as PolicyPayload).schema as cedar.Schema,
      comparedCounters: payload.data.compared_counters,
    },
    file: opened.file,
  };
}
