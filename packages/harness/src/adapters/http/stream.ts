import type { CompiledJsonPath } from './json-path.js';

/**
 * Incremental parsers for streamed agent replies: Server-Sent Events (text/event-stream) and newline-delimited
 * JSON. Chunks may split lines or events anywhere; `push` returns the events completed so far and `end` flushes
 * what is left when the body ends.
 */

export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/** SSE per the WHATWG spec: `data:` lines joined with newlines, blank line dispatches, `:` comments ignored. */
export class SseParser {
  #buffer = '';
  #data: string[] = [];
  #event = '';
  #id: string | undefined;

  push(chunk: string): SseEvent[] {
    this.#buffer += chunk;
    const out: SseEvent[] = [];
    let nl = this.#nextBreak();
    while (nl.at >= 0) {
      const line = this.#buffer.slice(0, nl.at);
      this.#buffer = this.#buffer.slice(nl.at + nl.len);
      this.#line(line, out);
      nl = this.#nextBreak();
    }
    return out;
  }

  end(): SseEvent[] {
    const out: SseEvent[] = [];
    if (this.#buffer.length > 0) {
      this.#line(this.#buffer, out);
      this.#buffer = '';
    }
    this.#line('', out);
    return out;
  }

  #nextBreak(): { at: number; len: number } {
    const b = this.#buffer;
    for (let i = 0; i < b.length; i++) {
      const c = b.charCodeAt(i);
      if (c === 10) return { at: i, len: 1 };
      if (c === 13) {
        // A lone CR at the end of the buffer may be the first half of CRLF: wait for more input.
        if (i === b.length - 1) return { at: -1, len: 0 };
        return { at: i, len: b.charCodeAt(i + 1) === 10 ? 2 : 1 };
      }
    }
    return { at: -1, len: 0 };
  }

  #line(line: string, out: SseEvent[]): void {
    if (line === '') {
      if (this.#data.length > 0) {
        out.push({
          event: this.#event || 'message',
          data: this.#data.join('\n'),
          ...(this.#id ? { id: this.#id } : {}),
        });
      }
      this.#data = [];
      this.#event = '';
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.#data.push(value);
    else if (field === 'event') this.#event = value;
    else if (field === 'id') this.#id = value;
  }
}

/** Newline-delimited JSON (also JSON Lines): one value per non-empty line. */
export class NdjsonParser {
  #buffer = '';

  push(chunk: string): string[] {
    this.#buffer += chunk;
    const lines = this.#buffer.split('\n');
    this.#buffer = lines.pop() ?? '';
    return lines.map((l) => l.trim()).filter((l) => l.length > 0);
  }

  end(): string[] {
    const rest = this.#buffer.trim();
    this.#buffer = '';
    return rest ? [rest] : [];
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The text piece carried by one streamed event, for the common wire formats (OpenAI chat and completions,
 * Anthropic content deltas, Ollama, plain `{delta|text|token|content}`); a non-JSON event is its own text.
 */
export function defaultDelta(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (!isObject(value)) return undefined;
  const choices = value.choices;
  if (Array.isArray(choices) && isObject(choices[0])) {
    const c = choices[0];
    if (isObject(c.delta)) return typeof c.delta.content === 'string' ? c.delta.content : '';
    if (typeof c.text === 'string') return c.text;
  }
  if (typeof value.delta === 'string') return value.delta;
  if (isObject(value.delta)) return typeof value.delta.text === 'string' ? value.delta.text : '';
  for (const key of ['text', 'token', 'content', 'response', 'output']) {
    if (typeof value[key] === 'string') return value[key] as string;
  }
  if (isObject(value.message) && typeof value.message.content === 'string') return value.message.content;
  return undefined;
}

/** Collects a stream's events into the final text, timing the first non-empty piece. */
export class StreamAccumulator {
  text = '';
  events: unknown[] = [];
  firstTokenAt: number | null = null;
  error: string | null = null;
  done = false;

  constructor(
    private readonly deltaPath: CompiledJsonPath | null,
    private readonly doneSentinel: string,
    private readonly clock: () => number,
  ) {}

  /** Feed one event's data; `event` is the SSE event name when there is one. */
  add(data: string, event = 'message'): void {
    if (this.done) return;
    if (data.trim() === this.doneSentinel) {
      this.done = true;
      return;
    }
    let value: unknown = data;
    try {
      value = JSON.parse(data);
    } catch {
      // Plain-text event: the data is the text.
    }
    if (event === 'error' || (isObject(value) && value.type === 'error')) {
      const detail = isObject(value) ? (value.error ?? value.message ?? value) : value;
      this.error = typeof detail === 'string' ? detail : JSON.stringify(detail);
      return;
    }
    this.events.push(value);
    let piece: unknown;
    if (this.deltaPath) {
      const found = this.deltaPath.all(value);
      piece = found.length > 0 ? found.join('') : undefined;
    } else piece = defaultDelta(value);
    if (typeof piece === 'string' && piece.length > 0) {
      if (this.firstTokenAt === null) this.firstTokenAt = this.clock();
      this.text += piece;
    }
  }
}
