import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AgentOutput } from '../core/agent.js';
import { makeDirectory } from '../core/directories.js';
import { errorMessage } from '../core/errors.js';
import type { AgentDescriptor } from '../core/experiment.js';
import type { Redactor } from '../core/redactor.js';
import type { Agent, RunContext } from './base.js';
import { errorOutput } from './normalize.js';

/**
 * Record and replay of agent exchanges, so CI can re-score a recorded agent run offline and deterministically.
 *
 * `--record DIR` wraps the run's agent: every exchange (request: the case input and variables; response: the
 * AgentOutput; timing) is appended to `DIR/cassette.jsonl`, keyed by case id and repeat (a later attempt of the
 * same key replaces an earlier one). `--replay DIR` builds an agent that answers from the cassette without
 * creating or calling the real one; a case with no entry, or whose input changed since recording, is an error.
 * Replayed outputs carry the recorded latency, so latency-based scores come out the same.
 */

export const CASSETTE_FILE = 'cassette.jsonl';
const FORMAT = 'harness.cassette.v1';

type Input = string | Record<string, unknown>;

interface CassetteHeader {
  type: 'header';
  format: typeof FORMAT;
  created_at: string;
  suite?: string;
  agent?: Partial<AgentDescriptor>;
}

interface CassetteExchange {
  type: 'exchange';
  key: string;
  test_id: string;
  repeat: number;
  attempt: number;
  request: { input: Input; vars: Record<string, unknown>; input_sha256: string };
  response: AgentOutput;
  timing: { started_at: string; duration: number };
}

/** The cassette key of a case run (same as the journal's result key). */
export function cassetteKey(testId: string, repeat: number): string {
  return `${testId}#${repeat}`;
}

function inputHash(input: Input): string {
  return createHash('sha256')
    .update(typeof input === 'string' ? `s:${input}` : `o:${JSON.stringify(input)}`)
    .digest('hex');
}

export interface RecordOptions {
  /** Removes secrets from each line before it is written (the suite's redactor). */
  scrub?: (text: string) => string;
  suite?: string;
}

/** Wrap `agent` so every exchange is appended to `dir/cassette.jsonl` as soon as it completes. */
export function recordingAgent(agent: Agent, dir: string, options: RecordOptions = {}): Agent {
  const folder = resolve(dir);
  makeDirectory(folder);
  const path = join(folder, CASSETTE_FILE);
  const scrub = options.scrub ?? ((t: string) => t);
  const fresh = !existsSync(path);
  let fd: number | null = openSync(path, 'a');
  const write = (line: object) => {
    if (fd === null) return;
    // One synchronous append per exchange: what finished is on disk even if the process is killed.
    writeSync(fd, `${scrub(JSON.stringify(line))}\n`);
  };
  if (fresh) {
    const header: CassetteHeader = {
      type: 'header',
      format: FORMAT,
      created_at: new Date().toISOString(),
      ...(options.suite ? { suite: options.suite } : {}),
      agent: agent.describe?.() ?? {},
    };
    write(header);
  }

  const recording: Agent = {
    async run(input: Input, context: RunContext) {
      const startedAt = new Date();
      const t0 = performance.now();
      let out: AgentOutput;
      try {
        out = await agent.run(input, context);
      } catch (err) {
        out = errorOutput(`agent threw: ${errorMessage(err)}`);
      }
      const duration = (performance.now() - t0) / 1000;
      // Fix the latency now, so a replay reports exactly what this run measured.
      if (out.latency === null) out = { ...out, latency: duration };
      if (!context.signal.aborted) {
        const exchange: CassetteExchange = {
          type: 'exchange',
          key: cassetteKey(context.testCase.id, context.repeat),
          test_id: context.testCase.id,
          repeat: context.repeat,
          attempt: context.attempt,
          request: { input, vars: { ...context.vars }, input_sha256: inputHash(input) },
          response: out,
          timing: { started_at: startedAt.toISOString(), duration },
        };
        write(exchange);
      }
      return out;
    },
    async close() {
      if (fd !== null) {
        closeSync(fd);
        fd = null;
      }
      await agent.close?.();
    },
  };
  if (agent.describe) recording.describe = () => (agent.describe as NonNullable<Agent['describe']>)();
  return recording;
}

/** Thrown when a cassette cannot be opened or parsed (a usage problem, before any case runs). */
export class CassetteError extends Error {
  readonly code = 'AEH_ERR_CASSETTE';
  override name = 'CassetteError';
}

export interface LoadedCassette {
  path: string;
  header: CassetteHeader | null;
  exchanges: Map<string, CassetteExchange>;
}

/** Read a cassette; a truncated last line (killed recorder) is tolerated, other bad lines are errors. */
export function loadCassette(dir: string): LoadedCassette {
  const folder = resolve(dir);
  const path = folder.endsWith('.jsonl') ? folder : join(folder, CASSETTE_FILE);
  if (!existsSync(path)) throw new CassetteError(`no cassette at ${path} (record one with --record ${dir})`);
  const lines = readFileSync(path, 'utf8').split('\n');
  let header: CassetteHeader | null = null;
  const exchanges = new Map<string, CassetteExchange>();
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (!line) continue;
    let entry: { type?: unknown };
    try {
      entry = JSON.parse(line) as { type?: unknown };
    } catch {
      const last = lines.slice(i + 1).every((l) => l.trim() === '');
      if (last) break;
      throw new CassetteError(`${path}:${i + 1}: not valid JSON`);
    }
    if (entry.type === 'header') {
      header ??= entry as CassetteHeader;
      continue;
    }
    if (entry.type !== 'exchange') continue;
    const ex = entry as CassetteExchange;
    const parsed = AgentOutput.safeParse(ex.response);
    if (typeof ex.key !== 'string' || !parsed.success) {
      throw new CassetteError(`${path}:${i + 1}: malformed exchange`);
    }
    exchanges.set(ex.key, { ...ex, response: parsed.data });
  }
  return { path, header, exchanges };
}

/** An agent that answers from a cassette and never calls the real one. */
export function replayAgent(dir: string): Agent {
  const cassette = loadCassette(dir);
  return {
    async run(input: Input, context: RunContext) {
      const key = cassetteKey(context.testCase.id, context.repeat);
      const ex = cassette.exchanges.get(key);
      if (!ex) {
        return errorOutput(
          `replay: no recorded exchange for case '${context.testCase.id}' repeat ${context.repeat} in ${cassette.path} (record it with --record)`,
          { metadata: { replay_missing: true } },
        );
      }
      if (ex.request.input_sha256 !== inputHash(input)) {
        return errorOutput(
          `replay: the input of case '${context.testCase.id}' changed since it was recorded in ${cassette.path}; record again`,
          { metadata: { replay_mismatch: true } },
        );
      }
      // The recorded answer as it was, minus retry hints: a replay never asks the runner to retry.
      const { transient: _t, retry_after: _r, ...rest } = ex.response;
      return structuredClone(rest) as AgentOutput;
    },
    describe() {
      const agent = cassette.header?.agent ?? {};
      return {
        ...agent,
        adapter: agent.adapter ?? 'replay',
        options: { ...(agent.options ?? {}), replayed_from: cassette.path },
      };
    },
  };
}

/**
 * The agent for `harness run --record DIR` / `--replay DIR`: replay never creates the suite's agent; record
 * creates it exactly as the runner would and wraps it.
 */
export async function cassetteAgent(
  mode: { record?: string; replay?: string },
  suite: {
    name: string;
    baseDir: string;
    agent: { adapter: string; options: Record<string, unknown> };
    redactor?: Redactor;
  },
  agentSpec?: { adapter: string; options?: Record<string, unknown> },
): Promise<Agent> {
  if (mode.record && mode.replay) throw new CassetteError('--record and --replay cannot be used together');
  if (mode.replay) return replayAgent(mode.replay);
  const { adapterRegistry } = await import('./base.js');
  const { parseOptions } = await import('../evaluators/base.js');
  const spec = agentSpec ?? suite.agent;
  const plugin = adapterRegistry.get(spec.adapter);
  const agent = await plugin.create(parseOptions(plugin, spec.options ?? {}) as never, {
    baseDir: suite.baseDir,
    env: process.env,
    secrets: suite.redactor,
  });
  const redactor = suite.redactor;
  return recordingAgent(agent, mode.record as string, {
    suite: suite.name,
    scrub: redactor ? (t) => redactor.text(t) : undefined,
  });
}
