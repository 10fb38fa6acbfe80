import { MalformedResponseError } from '../provider.js';

const PREVIEW = 120;

function preview(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > PREVIEW ? `${flat.slice(0, PREVIEW)}…` : flat;
}

/** Strips one surrounding Markdown code fence (``` or ```json) if present. */
export function stripCodeFence(text: string): string {
  const trimmed = text.trim();
  const fenced = /^```[a-zA-Z0-9_-]*[ \t]*\r?\n?([\s\S]*?)\r?\n?```$/.exec(trimmed);
  return fenced?.[1] !== undefined ? fenced[1].trim() : trimmed;
}

/**
 * Parses a model's text as one JSON object (a surrounding code fence is allowed). Anything else throws
 * MalformedResponseError: structured output is never guessed from prose.
 */
export function parseStructured(text: string): Record<string, unknown> {
  const body = stripCodeFence(text);
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new MalformedResponseError(`provider returned non-JSON text: ${JSON.stringify(preview(text))}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
    throw new MalformedResponseError(`provider returned JSON that is not an object (got ${kind})`);
  }
  return value as Record<string, unknown>;
}

/** Tool-call arguments as an object: objects pass, strings are parsed ("" means {}), anything else is malformed. */
export function parseToolArguments(raw: unknown): Record<string, unknown> {
  let value = raw;
  if (typeof raw === 'string') {
    if (raw.trim() === '') return {};
    try {
      value = JSON.parse(raw);
    } catch {
      throw new MalformedResponseError(`tool call arguments are not valid JSON: ${JSON.stringify(preview(raw))}`);
    }
  }
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new MalformedResponseError('tool call arguments are not a JSON object');
  }
  return value as Record<string, unknown>;
}
