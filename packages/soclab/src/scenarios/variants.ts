import type { AttackScenario } from '../contracts/scenarios.js';
import { checkTransformChain } from './transforms/index.js';

/**
 * Transform variants: the same attack with its payload text passed through a chain of transforms. Each variant
 * is its own case, named `<id>~<t1>+<t2>` so its outcome records its chain; the original id stays the stem.
 */

export const variantId = (id: string, chain: readonly string[]): string =>
  chain.length === 0 ? id : `${id}~${chain.join('+')}`;

/** Whether a scenario carries a payload text that transforms can rewrite. */
export const transformable = (s: AttackScenario): boolean => (s.untrusted_payload?.text ?? null) !== null;

/**
 * The scenario with `chain` appended to its own transforms. Throws for a scenario without payload text and for
 * an unknown transform or a split that needs more plants than the payload has.
 */
export function withTransforms(scenario: AttackScenario, chain: readonly string[]): AttackScenario {
  const payload = scenario.untrusted_payload;
  if (!payload || payload.text === null) {
    throw new Error(`${scenario.id} has no payload text in its YAML; transforms apply to planted payloads only`);
  }
  const transforms = [...payload.transforms, ...chain];
  const problem = checkTransformChain(transforms, payload.plant.length);
  if (problem) throw new Error(`${scenario.id}: ${problem}`);
  return Object.freeze({
    ...scenario,
    id: variantId(scenario.id, chain),
    untrusted_payload: Object.freeze({ ...payload, transforms: Object.freeze(transforms) }),
  });
}

/** Parse a `--transform` value: chains separated by `,`, transforms within a chain by `+`. */
export function parseTransformChains(value: string): string[][] {
  return value
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '')
    .map((c) => c.split('+').map((t) => t.trim()));
}
