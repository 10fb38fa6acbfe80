import { sha256, sortedKeysJson } from '../core/hash.js';

/** Stable id for a case without an explicit one: a short hash of its content (never its position). */
export function caseContentId(raw: Record<string, unknown>): string {
  const { id: _id, ...content } = raw;
  return `case-${sha256(sortedKeysJson(content)).slice(0, 12)}`;
}
