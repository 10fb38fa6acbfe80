import type { CedarRequest } from './facts.js';

/**
 * The run limits the gateway counts, each with the maximum it is held to (`context.limits.<counter>` and
 * `context.limits.<maximum>` in the policies).
 */
export const LIMIT_MAXIMUMS = {
  calls_made: 'max_calls',
  cost_used_micro_usd: 'max_cost_micro_usd',
  elapsed_ms: 'max_elapsed_ms',
} as const;
export type CountedLimit = keyof typeof LIMIT_MAXIMUMS;
export const COUNTED_LIMITS = Object.keys(LIMIT_MAXIMUMS) as CountedLimit[];

const COMPARISONS = new Set(['<', '<=', '>', '>=', '==', '!=']);

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The one operator of an expression node (`{"<": {...}}`), or undefined for anything else. */
function soleEntry(node: Node): [string, unknown] | undefined {
  const keys = Object.keys(node);
  return keys.length === 1 ? [keys[0] as string, node[keys[0] as string]] : undefined;
}

const isContext = (e: unknown): boolean => isNode(e) && e.Var === 'context' && Object.keys(e).length === 1;

/** `{".": {left, attr}}` → [left, attr]. */
function access(e: unknown): [unknown, string] | undefined {
  if (!isNode(e)) return undefined;
  const entry = soleEntry(e);
  if (entry?.[0] !== '.' || !isNode(entry[1])) return undefined;
  const { left, attr } = entry[1];
  return typeof attr === 'string' ? [left, attr] : undefined;
}

/** The attribute name when `e` is exactly `context.limits.<name>`. */
function limitRead(e: unknown): string | undefined {
  const outer = access(e);
  if (!outer) return undefined;
  const inner = access(outer[0]);
  return inner && inner[1] === 'limits' && isContext(inner[0]) ? outer[1] : undefined;
}

/**
 * Which counted limits the policies (Cedar's JSON form, one per policy) read only by comparing them with their own
 * maximum (`context.limits.calls_made < context.limits.max_calls`, any of < <= > >= == !=, either side). Any other
 * use of such a counter, of `context.limits` as a whole or of `context` as a whole leaves it out; so does anything this
 * walk does not recognise, since it only ever errs towards "not only compared".
 */
export function countersComparedOnlyWithMaxima(policies: readonly unknown[]): CountedLimit[] {
  const otherwiseRead = new Set<string>();
  const everything = () => {
    for (const name of COUNTED_LIMITS) otherwiseRead.add(name);
  };
  const visit = (e: unknown): void => {
    if (Array.isArray(e)) {
      for (const item of e) visit(item);
      return;
    }
    if (!isNode(e)) return;
    const entry = soleEntry(e);
    if (entry && COMPARISONS.has(entry[0]) && isNode(entry[1])) {
      const { left, right } = entry[1];
      const [l, r] = [limitRead(left), limitRead(right)];
      const paired = (counter: string | undefined, maximum: string | undefined) =>
        counter !== undefined &&
        maximum !== undefined &&
        Object.hasOwn(LIMIT_MAXIMUMS, counter) &&
        LIMIT_MAXIMUMS[counter as CountedLimit] === maximum;
      // A counter against its own maximum: the one use that leaves the counter free to be replaced (below).
      if (paired(l, r) || paired(r, l)) return;
    }
    if (entry && (entry[0] === '.' || entry[0] === 'has') && isNode(entry[1])) {
      const { left, attr } = entry[1];
      if (typeof attr === 'string') {
        const inner = access(left);
        if (inner && inner[1] === 'limits' && isContext(inner[0])) {
          // `context.limits.<attr>` read in any other way, or only tested with `has` (which reads no value).
          if (entry[0] === '.') otherwiseRead.add(attr);
          return;
        }
        // `context.<attr>` other than `context.limits` itself, or `context has <attr>`.
        if (isContext(left) && (attr !== 'limits' || entry[0] === 'has')) return;
        if (isContext(left)) {
          everything(); // `context.limits` as a whole value
          return;
        }
      }
    }
    if (isContext(e)) {
      everything(); // `context` as a whole value
      return;
    }
    for (const value of Object.values(e)) visit(value);
  };
  for (const policy of policies) visit(policy);
  return COUNTED_LIMITS.filter((name) => !otherwiseRead.has(name));
}

/**
 * Replace each listed counter by the value among 0, max and max+1 that compares with its maximum as the real count
 * does. A policy set that only compares these counters with their maxima decides identically either way, and a
 * request that differs only in how far below its limits a run is becomes the same request (one Cedar evaluation,
 * then the engine's memo) instead of a new one per call count, micro-dollar and millisecond. Changes `request` in
 * place (a fresh request from `toCedarRequest`).
 */
export function replaceComparedCounters(request: CedarRequest, counters: readonly CountedLimit[]): CedarRequest {
  const limits = request.context.limits as Record<string, number>;
  for (const counter of counters) {
    const value = limits[counter];
    const maximum = limits[LIMIT_MAXIMUMS[counter]];
    if (typeof value !== 'number' || typeof maximum !== 'number') continue;
    limits[counter] = value < maximum ? 0 : value === maximum ? maximum : maximum + 1;
  }
  return request;
}
