import type { ApprovedModel } from '../contracts/policy-input.js';

/**
 * Model identity: when is the model a vendor says answered the one that was approved?
 *
 * Vendors answer with a more specific name than the one asked for: OpenAI and Azure report the dated snapshot
 * (`gpt-4o-mini` -> `gpt-4o-mini-2024-07-18`), Anthropic resolves aliases to dated ids (`claude-sonnet-4-0` ->
 * `claude-sonnet-4-20250514`, `claude-3-5-haiku-latest` -> `claude-3-5-haiku-20241022`), and Gemini may prefix
 * `models/`. The rules, in order (docs/provider-compatibility.md, "Model identity"):
 *
 * 1. exact: the returned name equals the approved one;
 * 2. snapshot: the returned name is the approved one plus a date suffix, `-YYYY-MM-DD` or `-YYYYMMDD`;
 * 3. alias: an approved name ending in `-latest` or `-0` stands for the same name without that suffix plus a date
 *    suffix;
 * 4. a leading `models/` (Gemini) is ignored on both sides.
 *
 * Nothing else matches: a different family (`gpt-4o` for `gpt-4o-mini`), extra words after the date, or another
 * provider id are unapproved, so the gate keeps its teeth.
 */
const DATE_SUFFIX = /^-(?:\d{4}-\d{2}-\d{2}|\d{8})$/;

const bare = (name: string): string => name.trim().replace(/^models\//, '');

/** True when `returned` is `approved` under the rules above. */
export function modelMatches(approved: string, returned: string): boolean {
  const a = bare(approved);
  const r = bare(returned);
  if (a === '' || r === '') return false;
  if (a === r) return true;
  const bases = [a];
  const [, aliasBase] = /^(.+)-(?:latest|0)$/.exec(a) ?? [];
  if (aliasBase !== undefined) bases.push(aliasBase);
  return bases.some((base) => r.startsWith(base) && DATE_SUFFIX.test(r.slice(base.length)));
}

/** The approved pair a (provider, returned model) matches, or null when it is not approved. */
export function matchApprovedModel(
  approved: readonly ApprovedModel[],
  provider: string,
  model: string,
): ApprovedModel | null {
  return (
    approved.find(([p, m]) => p === provider && m === model) ??
    approved.find(([p, m]) => p === provider && modelMatches(m, model)) ??
    null
  );
}
