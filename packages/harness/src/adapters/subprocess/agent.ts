import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type AgentOutput, agentOutput } from '../../core/agent.js';
import { errorMessage } from '../../core/errors.js';
import type { Redactor } from '../../core/redactor.js';
import type { PluginContext } from '../../plugins/registry.js';
import { looksSecret, registerCredentialPositions, SecretScrubber } from '../../secrets/scrubber.js';
import type { Agent, RunContext } from '../base.js';
import { type CompiledTemplate, compileTemplate, type TemplateScope } from '../http/template.js';
import { errorOutput, excerpt, replyToOutput } from '../normalize.js';
import type { SubprocessOptions } from './options.js';
import {
  childEnv,
  DEFAULT_ENV_ALLOW,
  killGroup,
  programOf,
  signalGroup,
  spawnErrorText,
  spawnGroup,
  splitCommand,
  Tail,
} from './process.js';

type Input = string | Record<string, unknown>;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function requestContext(context: RunContext, workspace: string | null) {
  return {
    test_id: context.testCase.id,
    test_name: context.testCase.name,
    repeat: context.repeat,
    attempt: context.attempt,
    vars: context.vars,
    tags: context.testCase.tags,
    metadata: context.testCase.metadata,
    ...(workspace ? { workspace } : {}),
  };
}

/** Exit status and stderr, the way errors quote them. */
function exitText(code: number | null, signal: NodeJS.Signals | null, stderr: string): string {
  const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
  const tail = excerpt(stderr.slice(-2000), 600);
  return `process ${how}${tail ? `: ${tail}` : ''}`;
}

/** Runs a command-line agent; see ../subprocess.ts for the two modes. */
export class SubprocessAgent implements Agent {
  readonly #options: SubprocessOptions;
  readonly #argv: CompiledTemplate<string>[];
  readonly #cwd: CompiledTemplate<string> | null;
  readonly #env: CompiledTemplate<Record<string, string>>;
  readonly #baseDir: string;
  readonly #parentEnv: Readonly<Record<string, string | undefined>>;
  readonly #allow: readonly string[];
  readonly #scrubber: Redactor;
  readonly #templateEnv: Record<string, string | undefined> = {};
  #worker: JsonlWorker | null = null;

  constructor(options: SubprocessOptions, ctx: PluginContext) {
    this.#options = options;
    this.#scrubber = ctx.secrets ?? new SecretScrubber();
    const words = Array.isArray(options.command) ? options.command : splitCommand(options.command);
    if (words.length === 0) throw new Error('command: empty command');
    this.#argv = words.map((w, i) => compileTemplate(w, `command[${i}]`));
    this.#cwd = options.cwd ? compileTemplate(options.cwd, 'cwd') : null;
    this.#env = compileTemplate(options.env, 'env');
    this.#baseDir = ctx.baseDir;
    this.#parentEnv = ctx.env;
    this.#allow = options.env_allow ?? DEFAULT_ENV_ALLOW;
    for (const t of [...this.#argv, this.#cwd, this.#env]) {
      for (const name of t?.envNames ?? []) {
        this.#templateEnv[name] = ctx.env[name];
        if (looksSecret(name)) this.#scrubber.add(ctx.env[name]);
      }
    }
    registerCredentialPositions(options, ctx.env, this.#scrubber);
    for (const name of this.#allow) if (looksSecret(name)) this.#scrubber.add(ctx.env[name]);
    if (options.mode === 'jsonl') {
      // The persistent process cannot depend on a case: its command, cwd and env see only `env.*`.
      const scope: TemplateScope = { env: this.#templateEnv };
      const argv = this.#argv.map((t) => t.renderText(scope));
      this.#worker = new JsonlWorker(
        argv,
        this.#resolveCwd(this.#cwd?.renderText(scope)),
        childEnv(ctx.env, this.#allow, { ...this.#env.renderText(scope) }),
        options,
      );
    }
  }

  describe() {
    const env = Object.fromEntries(
      Object.keys(this.#options.env).map((k) => [k, looksSecret(k) ? '[REDACTED]' : this.#options.env[k]]),
    );
    return { adapter: 'subprocess', options: this.#scrubber.deep({ ...this.#options, env }) };
  }

  async close(): Promise<void> {
    await this.#worker?.close();
  }

  #resolveCwd(dir: string | undefined): string {
    if (!dir) return this.#baseDir;
    return isAbsolute(dir) ? dir : resolve(this.#baseDir, dir);
  }

  async run(input: Input, context: RunContext): Promise<AgentOutput> {
    const started = performance.now();
    let workspace: string | null = null;
    try {
      if (this.#options.temp_workspace) workspace = await mkdtemp(join(tmpdir(), 'harness-case-'));
      const out = this.#worker
        ? await this.#worker.request(input, requestContext(context, workspace), context.signal, started)
        : await this.#runOnce(input, context, workspace, started);
      return this.#scrubber.output(out);
    } catch (err) {
      const message = errorMessage(err);
      return this.#scrubber.output(
        errorOutput(`subprocess: ${message}`, { latency: (performance.now() - started) / 1000 }),
      );
    } finally {
      if (workspace && !this.#options.keep_workspace) await rm(workspace, { recursive: true, force: true });
    }
  }

  async #runOnce(input: Input, context: RunContext, workspace: string | null, started: number): Promise<AgentOutput> {
    const scope: TemplateScope = {
      input,
      vars: context.vars,
      env: this.#templateEnv,
      test: { id: context.testCase.id, name: context.testCase.name, tags: context.testCase.tags },
      repeat: context.repeat,
      attempt: context.attempt,
    };
    const argv = this.#argv.map((t) => t.renderText(scope));
    const cwd = workspace ?? this.#resolveCwd(this.#cwd?.renderText(scope));
    const env = childEnv(this.#parentEnv, this.#allow, {
      ...this.#env.renderText(scope),
      HARNESS_TEST_ID: context.testCase.id,
      HARNESS_REPEAT: String(context.repeat),
      HARNESS_ATTEMPT: String(context.attempt),
      ...(workspace ? { HARNESS_WORKSPACE: workspace } : {}),
    });
    let stdin: string | null = null;
    if (this.#options.stdin === 'input') stdin = typeof input === 'string' ? input : JSON.stringify(input);
    else if (this.#options.stdin === 'request') {
      stdin = JSON.stringify({
        id: `${context.testCase.id}#${context.repeat}`,
        input,
        context: requestContext(context, workspace),
      });
    }
    const elapsed = () => (performance.now() - started) / 1000;
    if (context.signal.aborted) return errorOutput('aborted before the process was started', { latency: 0 });

    const child = spawnGroup(programOf(argv), argv.slice(1), cwd, env);
    const result = await collect(child, stdin, context.signal, this.#options);
    const latency = elapsed();
    const metadata: Record<string, unknown> = {
      exit_code: result.code,
      ...(result.signal ? { signal: result.signal } : {}),
      ...(result.stderr ? { stderr: result.stderr.slice(-2000) } : {}),
    };
    if (result.spawnError) {
      return errorOutput(spawnErrorText(result.spawnError, programOf(argv), cwd), { latency, metadata });
    }
    if (result.timedOut) {
      return errorOutput(
        `process timed out after ${this.#options.timeout} s; its process group was killed${result.stderr ? `: ${excerpt(result.stderr.slice(-2000), 300)}` : ''}`,
        { latency, metadata },
      );
    }
    if (result.aborted)
      return errorOutput('aborted (case timeout or cancellation); process group killed', { latency, metadata });
    if (result.tooLarge) {
      return errorOutput(`process wrote more than max_output_bytes (${this.#options.max_output_bytes}) to stdout`, {
        latency,
        metadata,
      });
    }
    if (result.code !== 0) {
      return errorOutput(exitText(result.code, result.signal, result.stderr), { latency, metadata });
    }
    return parseStdout(result.stdout, this.#options.output, latency, metadata);
  }
}

interface Collected {
  stdout: string;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  tooLarge: boolean;
  spawnError: NodeJS.ErrnoException | null;
}

/** Feed stdin, gather stdout/stderr, enforce the timeout, size limit and cancellation; never rejects. */
function collect(
  child: ChildProcess,
  stdin: string | null,
  signal: AbortSignal,
  options: SubprocessOptions,
): Promise<Collected> {
  return new Promise((done) => {
    const out: Buffer[] = [];
    let outSize = 0;
    const stderr = new Tail(16_384);
    const state: Collected = {
      stdout: '',
      stderr: '',
      code: null,
      signal: null,
      timedOut: false,
      aborted: false,
      tooLarge: false,
      spawnError: null,
    };
    let finished = false;
    const graceMs = options.kill_grace * 1000;
    const stop = () => killGroup(child, graceMs);
    const timer = options.timeout
      ? setTimeout(() => {
          state.timedOut = true;
          stop();
        }, options.timeout * 1000)
      : null;
    const onAbort = () => {
      state.aborted = true;
      stop();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    let exitTimer: NodeJS.Timeout | null = null;

    const finish = () => {
      if (finished) return;
      finished = true;
      if (timer) clearTimeout(timer);
      if (exitTimer) clearTimeout(exitTimer);
      signal.removeEventListener('abort', onAbort);
      state.stdout = Buffer.concat(out).toString('utf8');
      state.stderr = stderr.toString();
      done(state);
    };

    child.stdout?.on('data', (chunk: Buffer) => {
      outSize += chunk.length;
      if (outSize > options.max_output_bytes) {
        if (!state.tooLarge) {
          state.tooLarge = true;
          stop();
        }
        return;
      }
      out.push(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', (err: NodeJS.ErrnoException) => {
      state.spawnError = err;
      finish();
    });
    child.on('exit', (code, sig) => {
      state.code = code;
      state.signal = sig;
      // Background children left in the group would keep the pipes open: clean them up, then stop waiting soon.
      signalGroup(child, 'SIGKILL');
      exitTimer = setTimeout(finish, 200);
    });
    child.on('close', finish);
    // A child that never reads stdin closes the pipe early; that is not an error.
    child.stdin?.on('error', () => {});
    if (stdin !== null) child.stdin?.end(stdin);
    else child.stdin?.end();
  });
}

function parseStdout(
  stdout: string,
  mode: SubprocessOptions['output'],
  latency: number,
  metadata: Record<string, unknown>,
): AgentOutput {
  const text = stdout.trim();
  if (mode === 'text') return agentOutput({ output: text, latency, metadata });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    if (mode === 'json') {
      return errorOutput(`expected JSON on stdout, got: ${excerpt(text, 200)}`, { latency, metadata });
    }
    return agentOutput({ output: text, latency, metadata });
  }
  if (isObject(parsed) && 'output' in parsed) {
    const out = replyToOutput(parsed, latency);
    return { ...out, metadata: { ...out.metadata, ...metadata } };
  }
  const output = typeof parsed === 'string' || isObject(parsed) ? parsed : text;
  return agentOutput({ output, latency, metadata });
}

interface Pending {
  resolve(out: AgentOutput): void;
  started: number;
  testId: string;
}

/** One long-lived child speaking JSON lines; (re)started on demand, requests matched to replies by id. */
class JsonlWorker {
  #child: ChildProcess | null = null;
  #pending = new Map<string, Pending>();
  #seq = 0;
  #buffer = '';
  #stderr = new Tail(16_384);
  #restartReason: string | null = null;
  #closing = false;
  #exited: Promise<void> | null = null;

  constructor(
    private readonly argv: string[],
    private readonly cwd: string,
    private readonly env: Record<string, string>,
    private readonly options: SubprocessOptions,
  ) {}

  #start(): ChildProcess {
    const child = spawnGroup(programOf(this.argv), this.argv.slice(1), this.cwd, this.env);
    this.#buffer = '';
    this.#stderr = new Tail(16_384);
    this.#restartReason = null;
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => this.#onData(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.#stderr.push(chunk));
    child.stdin?.on('error', () => {});
    this.#exited = new Promise((resolveExit) => {
      let spawnError: NodeJS.ErrnoException | null = null;
      child.on('error', (err: NodeJS.ErrnoException) => {
        spawnError = err;
        if (child.pid === undefined) {
          this.#fail(child, spawnErrorText(err, programOf(this.argv), this.cwd), false);
          resolveExit();
        }
      });
      child.on('exit', (code, sig) => {
        signalGroup(child, 'SIGKILL');
        const reason = this.#restartReason;
        const message = reason
          ? `agent process was restarted: ${reason}`
          : spawnError
            ? spawnErrorText(spawnError, programOf(this.argv), this.cwd)
            : exitText(code, sig, this.#stderr.toString());
        this.#fail(child, message, reason !== null);
        resolveExit();
      });
    });
    this.#child = child;
    return child;
  }

  #fail(child: ChildProcess, message: string, transient: boolean): void {
    if (this.#child === child) this.#child = null;
    const stderr = this.#stderr.toString().slice(-2000);
    for (const [id, p] of this.#pending) {
      this.#pending.delete(id);
      p.resolve(
        errorOutput(message, {
          transient,
          latency: (performance.now() - p.started) / 1000,
          metadata: {
            exit_code: child.exitCode,
            ...(child.signalCode ? { signal: child.signalCode } : {}),
            ...(stderr ? { stderr } : {}),
          },
        }),
      );
    }
  }

  #onData(chunk: string): void {
    this.#buffer += chunk;
    if (this.#buffer.length > this.options.max_output_bytes) {
      this.#restartReason = `it wrote a line longer than max_output_bytes (${this.options.max_output_bytes})`;
      if (this.#child) killGroup(this.#child, this.options.kill_grace * 1000);
      this.#buffer = '';
      return;
    }
    let nl = this.#buffer.indexOf('\n');
    while (nl >= 0) {
      const line = this.#buffer.slice(0, nl).trim();
      this.#buffer = this.#buffer.slice(nl + 1);
      if (line) this.#onLine(line);
      nl = this.#buffer.indexOf('\n');
    }
  }

  #onLine(line: string): void {
    let reply: unknown;
    try {
      reply = JSON.parse(line);
    } catch {
      // Not protocol traffic (a stray print): diagnostics only.
      this.#stderr.push(`[stdout] ${line}\n`);
      return;
    }
    if (!isObject(reply) || (typeof reply.id !== 'string' && typeof reply.id !== 'number')) return;
    const p = this.#pending.get(String(reply.id));
    if (!p) return;
    this.#pending.delete(String(reply.id));
    p.resolve(replyToOutput(reply, (performance.now() - p.started) / 1000));
  }

  request(input: Input, context: ReturnType<typeof requestContext>, signal: AbortSignal, started: number) {
    if (this.#closing) return Promise.resolve(errorOutput('subprocess adapter is closed'));
    if (signal.aborted) return Promise.resolve(errorOutput('aborted before the request was sent', { latency: 0 }));
    const child = this.#child ?? this.#start();
    const id = `${++this.#seq}`;
    return new Promise<AgentOutput>((resolveOut) => {
      let timer: NodeJS.Timeout | null = null;
      const settle = (out: AgentOutput) => {
        if (timer) clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolveOut(out);
      };
      const giveUp = (message: string, why: string) => {
        if (!this.#pending.delete(id)) return;
        settle(errorOutput(message, { latency: (performance.now() - started) / 1000 }));
        if (this.options.restart_on_timeout && this.#child === child) {
          this.#restartReason = `case ${context.test_id} (request ${id}) ${why}`;
          killGroup(child, this.options.kill_grace * 1000);
        }
      };
      const onAbort = () => giveUp('aborted (case timeout or cancellation)', 'was cancelled');
      signal.addEventListener('abort', onAbort, { once: true });
      if (this.options.timeout) {
        timer = setTimeout(
          () => giveUp(`no reply within ${this.options.timeout} s (timeout)`, 'timed out'),
          this.options.timeout * 1000,
        );
      }
      this.#pending.set(id, { resolve: settle, started, testId: context.test_id });
      child.stdin?.write(`${JSON.stringify({ id, input, context })}\n`);
    });
  }

  async close(): Promise<void> {
    this.#closing = true;
    const child = this.#child;
    if (!child) return;
    this.#restartReason = 'the adapter was closed';
    child.stdin?.end();
    const exited = this.#exited;
    const timer = setTimeout(() => killGroup(child, this.options.kill_grace * 1000), 1000);
    await exited;
    clearTimeout(timer);
  }
}
