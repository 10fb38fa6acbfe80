import { type ChildProcess, spawn } from 'node:child_process';

/** Process plumbing shared by the per-case and JSON-lines subprocess modes. */

/** Variables a child inherits by default; everything else must be allowed by name (`env_allow`). */
export const DEFAULT_ENV_ALLOW = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'TMPDIR',
  'TERM',
  'SYSTEMROOT',
  'COMSPEC',
  'WINDIR',
];

/** Split a command line into words: whitespace separates, single and double quotes group, backslash escapes. */
export function splitCommand(command: string): string[] {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < command.length; i++) {
    const c = command.charAt(i);
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < command.length) current += command.charAt(++i);
      else current += c;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < command.length) {
      current += command.charAt(++i);
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else {
      current += c;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unclosed ${quote} quote in command: ${command}`);
  if (inWord) words.push(current);
  return words;
}

/** Build the child's environment: the allowed parent variables, then explicit values. */
export function childEnv(
  parent: Readonly<Record<string, string | undefined>>,
  allow: readonly string[],
  explicit: Record<string, string>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of allow) {
    const v = parent[name];
    if (v !== undefined) env[name] = v;
  }
  return Object.assign(env, explicit);
}

/** The program of a command line (its first word); empty commands are refused when options are read. */
export function programOf(argv: readonly string[]): string {
  const [program] = argv;
  if (program === undefined) throw new Error('command: empty command');
  return program;
}

/** Start a child as the leader of its own process group, so a timeout can kill everything it started. */
export function spawnGroup(command: string, args: string[], cwd: string, env: Record<string, string>): ChildProcess {
  return spawn(command, args, { cwd, env, detached: process.platform !== 'win32', stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Signal the child's whole process group (falls back to the child alone where groups do not exist). */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === 'win32') child.kill(signal);
    else process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** SIGTERM the group, then SIGKILL it after `graceMs` if the leader has not exited. */
export function killGroup(child: ChildProcess, graceMs: number): void {
  signalGroup(child, 'SIGTERM');
  if (child.exitCode !== null || child.signalCode !== null) {
    signalGroup(child, 'SIGKILL');
    return;
  }
  const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs);
  timer.unref();
  child.once('exit', () => {
    clearTimeout(timer);
    // Whatever the leader left behind (grandchildren in the same group) goes too.
    signalGroup(child, 'SIGKILL');
  });
}

/** Keeps only the last `limit` characters of a stream (stderr is for diagnostics, not for storage). */
export class Tail {
  #text = '';
  constructor(private readonly limit = 8192) {}
  push(chunk: Buffer | string): void {
    this.#text += chunk.toString();
    if (this.#text.length > this.limit * 2) this.#text = this.#text.slice(-this.limit);
  }
  toString(): string {
    return this.#text.length > this.limit ? this.#text.slice(-this.limit) : this.#text;
  }
}

/** Human text for a spawn failure (missing command, not executable, bad cwd). */
export function spawnErrorText(err: NodeJS.ErrnoException, command: string, cwd: string): string {
  if (err.code === 'ENOENT') return `command not found or working directory missing: ${command} (cwd ${cwd})`;
  if (err.code === 'EACCES') return `command is not executable: ${command}`;
  return `could not start ${command}: ${err.message}`;
}
