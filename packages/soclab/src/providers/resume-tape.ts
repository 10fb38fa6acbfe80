import { looksSecret, SecretScrubber } from '@aeh/harness/secrets';
import { type ModelProvider, type ModelRequest, ModelResponse, ProviderError } from '@aeh/models';
import { sha256Hex } from '../contracts/canonical.js';
import { reproducibleScope } from '../contracts/reproducible.js';
import { containsSecret } from '../control/redaction.js';
import { canaryForRun } from '../simulator/state.js';
import { wrapProvider } from './wrap-provider.js';

/**
 * The resume tape: what a live model answered on each turn of a run that may wait for a person, so that after a
 * restart the waiting run can be re-executed from its seed without asking the model again (a live model answers
 * differently the second time, and the re-reached proposal would no longer match the persisted one).
 *
 * One entry per successful provider call: the run's seeded scope, the turn (0-based count of answered calls in that
 * run), the hash of the exact request and the response as the orchestrator received it, with each of the run's
 * canary values replaced by a placeholder naming its fixture canary. The run's canaries derive from the fixture and
 * its run id, so the replay puts them back; text that only looks like a placeholder is escaped, never turned into a
 * canary. Provider keys never enter the tape (it holds
 * responses only), and the environment's secrets are scrubbed from it anyway.
 */
export interface TapeEntry {
  scope: string;
  turn: number;
  request_hash: string;
  /** The redacted ModelResponse as JSON text, or null when the turn could not be stored safely (not replayable). */
  response: string | null;
}

/** Where a run's turns go while it is recorded (the server persists them), and what a resume replays. */
export interface ResumeTape {
  /** Entries recorded before the restart, for the campaign being resumed (empty on a first run). */
  readonly entries: readonly TapeEntry[];
  /** A new turn answered live: persist it. */
  record(entry: TapeEntry): void;
  /** Environment the provider was configured from: its secret-looking values are scrubbed from every entry. */
  readonly env?: Record<string, string | undefined>;
}

const PREFIX = '[[soclab-';
const ESCAPED = '[[soclab-esc:';
const PLACEHOLDER = /\[\[soclab-canary:([A-Za-z0-9_-]+)\]\]/g;

/** Thrown when a response cannot be taped without storing a canary (an encoded form of one of the run's values). */
class NotTapeable extends Error {}

/** The run's canary values (fixture canary -> this run's value), derived from its run id as the simulator does. */
export type RunCanaries = ReadonlyMap<string, string>;

export const runCanaries = (bases: readonly string[], runId: string): RunCanaries =>
  new Map(bases.map((base) => [base, canaryForRun(base, runId)]));

/**
 * One string of a response, made storable: existing `[[soclab-` text is escaped first (so it is never read back as
 * a placeholder), then each of the run's canary values becomes `[[soclab-canary:<fixture canary>]]` (longest first,
 * so a value containing another is replaced whole).
 */
export function tapeText(text: string, canaries: RunCanaries): string {
  let out = text.split(PREFIX).join(ESCAPED);
  const byLength = [...canaries].sort((a, b) => b[1].length - a[1].length);
  for (const [base, value] of byLength) out = out.split(value).join(`[[soclab-canary:${base}]]`);
  return out;
}

/** The inverse of `tapeText` for the same run; a placeholder naming no canary of the run stays as it is. */
export function untapeText(text: string, canaries: RunCanaries): string {
  return text
    .replace(PLACEHOLDER, (match, base: string) => canaries.get(base) ?? match)
    .split(ESCAPED)
    .join(PREFIX);
}

function mapStrings(value: unknown, fn: (s: string) => string): unknown {
  if (typeof value === 'string') return fn(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, fn));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [fn(k), mapStrings(v, fn)]));
  }
  return value;
}

/** The scrubber for the provider's environment: every value under a secret-looking name (keys, tokens). */
function envScrubber(env: Record<string, string | undefined> | undefined): SecretScrubber {
  const scrubber = new SecretScrubber();
  for (const [name, value] of Object.entries(env ?? process.env)) {
    if (value && looksSecret(name)) scrubber.addCredential(value);
  }
  return scrubber;
}

/**
 * The stored form of a response, or null when it cannot be stored without a canary (an encoded form of one of the
 * run's values) or a secret of the environment: such a turn is not replayable, and a resume reaching it is a
 * `resume_mismatch` (deny by default).
 */
export function encodeResponse(
  response: ModelResponse,
  canaries: RunCanaries,
  scrubber: SecretScrubber,
): string | null {
  try {
    const encoded = mapStrings(JSON.parse(JSON.stringify(response)), (s) => tapeText(s, canaries));
    if (containsSecret(encoded, [...canaries.values()])) throw new NotTapeable('an encoded canary');
    const text = JSON.stringify(encoded);
    return scrubber.text(text) === text ? text : null;
  } catch (error) {
    if (error instanceof NotTapeable) return null;
    throw error;
  }
}

/** The response a tape entry holds, with the run's canaries back. */
export function decodeResponse(stored: string, canaries: RunCanaries): ModelResponse {
  return ModelResponse.parse(mapStrings(JSON.parse(stored), (s) => untapeText(s, canaries)));
}

const hashOf = (kind: string, request: ModelRequest, toolName?: string, toolResult?: unknown): string =>
  sha256Hex(JSON.stringify({ kind, request, tool_name: toolName ?? null, tool_result: toolResult ?? null }));

/**
 * `provider` for one scenario run (call inside its reproducible scope). Recording: every answered call is taped.
 * Resuming: a turn on the tape is answered from it when the request hash matches; a different request, or a turn
 * that could not be stored, is a `resume_mismatch` (the run stops; the waiting decision is not applied). Turns past
 * the end of the tape go to the live provider and are taped in turn.
 */
export function withResumeTape(
  provider: ModelProvider,
  tape: ResumeTape,
  canaryBases: readonly string[],
): ModelProvider {
  const scope = reproducibleScope()?.name;
  if (!scope) return provider;
  const taped = new Map(tape.entries.filter((e) => e.scope === scope).map((e) => [e.turn, e]));
  const scrubber = envScrubber(tape.env);
  let turn = 0;
  const answer = async (
    kind: string,
    request: ModelRequest,
    live: () => Promise<ModelResponse>,
    toolName?: string,
    toolResult?: unknown,
  ): Promise<ModelResponse> => {
    const index = turn;
    const hash = hashOf(kind, request, toolName, toolResult);
    const entry = taped.get(index);
    if (entry) {
      if (entry.request_hash !== hash || entry.response === null) {
        throw new ProviderError(
          `resume_mismatch: run ${scope} turn ${index}: ${entry.response === null ? 'the taped answer could not be stored' : 'the request differs from the taped one'}`,
          { code: 'resume_mismatch', retryable: false },
        );
      }
      turn += 1;
      return decodeResponse(entry.response, runCanaries(canaryBases, request.run_id ?? ''));
    }
    const response = await live();
    turn += 1;
    tape.record({
      scope,
      turn: index,
      request_hash: hash,
      response: encodeResponse(response, runCanaries(canaryBases, request.run_id ?? ''), scrubber),
    });
    return response;
  };
  // Streams are not taped (the default delegation): a resumed run that streams asks the model again.
  return wrapProvider(provider, {
    generate: (request, signal) => answer('generate', request, () => provider.generate(request, signal)),
    generateStructured: (request, signal) =>
      answer('generateStructured', request, () => provider.generateStructured(request, signal)),
    requestTool: (request, signal) => answer('requestTool', request, () => provider.requestTool(request, signal)),
    continueAfterTool: (request, toolName, toolResult, signal) =>
      answer(
        'continueAfterTool',
        request,
        () => provider.continueAfterTool(request, toolName, toolResult, signal),
        toolName,
        toolResult,
      ),
  });
}
