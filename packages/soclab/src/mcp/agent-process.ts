import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { isErrnoException } from '@aeh/harness/errors';
import { childEnv, DEFAULT_ENV_ALLOW, splitCommand } from '@aeh/harness/subprocess';
import { serveLabMcpHttp } from './http.js';
import type { McpRunSession } from './session.js';

/** How the lab meets the agent: it serves HTTP and hands the URL over, or the agent launches the stdio server. */
export type McpAgentTransport = 'http' | 'stdio';

export interface McpAgentLaunch {
  /** The agent's command line (split like a shell would, without a shell); empty with `attended`. */
  command: string;
  /**
   * No process to launch: serve the run (on `port`, default any free one) and wait for whoever connects with the
   * token — a person with MCP Inspector, or an agent started by hand — to submit a finding or for the budget.
   */
  attended?: { port?: number; onReady(server: { url: string; token: string }): void };
  transport?: McpAgentTransport;
  cwd?: string;
  /**
   * Names of extra environment variables the agent may see (e.g. its vendor API key). Deny by default: the agent
   * gets only PATH, HOME and the like plus the SOCLAB_MCP_* variables, never the lab's signing key or database URL.
   */
  passEnv?: readonly string[];
  /** Milliseconds the agent may take to exit after it submitted (default 2000); then SIGTERM, then SIGKILL. */
  graceMs?: number;
  /** Parent environment (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
}

export interface McpAgentExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** True when the lab stopped the agent (after its finding or at a limit). */
  stoppedByLab: boolean;
}

/** The command an agent runs (stdio transport) to start the lab's MCP server: this soclab's `mcp stdio`. */
export function labStdioServerCommand(): { command: string; args: string[] } {
  const bin = fileURLToPath(new URL('../../bin/soclab.js', import.meta.url));
  return { command: process.execPath, args: [bin, 'mcp', 'stdio'] };
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

function exited(child: ChildProcess): Promise<McpAgentExit> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode, stoppedByLab: false });
      return;
    }
    child.once('exit', (code, signal) => resolve({ code, signal, stoppedByLab: false }));
    child.once('error', () => resolve({ code: null, signal: null, stoppedByLab: false }));
  });
}

/**
 * Run one agent against one run session: serve the session over HTTP on loopback with a fresh token, launch the
 * agent with `SOCLAB_MCP_URL` and `SOCLAB_MCP_TOKEN` (stdio: also `SOCLAB_MCP_SERVER_COMMAND` and
 * `SOCLAB_MCP_SERVER_ARGS`, the lab's stdio server to launch), and wait for its finding, its exit or the session's
 * budget. An agent that exits without a finding ends the run as `failed`; one that cannot be started as `errored`.
 * The agent's own output is discarded: it may echo canaries or the token, and nothing of it reaches a log.
 */
export async function runMcpAgent(session: McpRunSession, launch: McpAgentLaunch): Promise<McpAgentExit> {
  if (launch.attended) {
    const http = await serveLabMcpHttp(session, { port: launch.attended.port });
    try {
      launch.attended.onReady({ url: http.url, token: http.token });
      await session.done;
    } finally {
      await http.close();
    }
    return { code: null, signal: null, stoppedByLab: false };
  }
  const [program, ...programArgs] = splitCommand(launch.command);
  if (program === undefined) {
    session.end('errored', 'agent command is empty');
    return { code: null, signal: null, stoppedByLab: false };
  }
  const http = await serveLabMcpHttp(session);
  try {
    const parent = launch.env ?? process.env;
    const stdio = labStdioServerCommand();
    const env = childEnv(parent, [...DEFAULT_ENV_ALLOW, ...(launch.passEnv ?? [])], {
      SOCLAB_MCP_URL: http.url,
      SOCLAB_MCP_TOKEN: http.token,
      SOCLAB_MCP_TRANSPORT: launch.transport ?? 'http',
      ...(launch.transport === 'stdio'
        ? { SOCLAB_MCP_SERVER_COMMAND: stdio.command, SOCLAB_MCP_SERVER_ARGS: JSON.stringify(stdio.args) }
        : {}),
    });
    let child: ChildProcess;
    try {
      child = spawn(program, programArgs, {
        cwd: launch.cwd,
        env,
        stdio: ['ignore', 'ignore', 'ignore'],
        detached: process.platform !== 'win32',
      });
    } catch (error) {
      const code = isErrnoException(error) ? error.code : undefined;
      session.end('errored', `agent command could not start: ${code ?? 'error'}`);
      return { code: null, signal: null, stoppedByLab: false };
    }
    let spawnError: string | null = null;
    child.once('error', (error: NodeJS.ErrnoException) => {
      spawnError = error.code ?? error.name;
    });
    const exit = exited(child);
    const first = await Promise.race([session.done.then(() => 'done' as const), exit.then(() => 'exit' as const)]);
    if (first === 'exit') {
      const e = await exit;
      if (spawnError) session.end('errored', `agent command could not start: ${spawnError}`);
      else {
        const how = e.signal ? `was killed by ${e.signal}` : `exited with code ${e.code}`;
        session.end('failed', `the agent ${how} before submitting a finding`);
      }
      return e;
    }
    const graceful = await Promise.race([exit, wait(launch.graceMs ?? 2000).then(() => null)]);
    if (graceful) return graceful;
    const kill = (signal: NodeJS.Signals) => {
      try {
        // The whole process group: an agent's own children (e.g. the stdio server it launched) go with it.
        if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, signal);
        else child.kill(signal);
      } catch {
        // Already gone.
      }
    };
    kill('SIGTERM');
    const termed = await Promise.race([exit, wait(2000).then(() => null)]);
    if (!termed) kill('SIGKILL');
    return { ...(termed ?? (await exit)), stoppedByLab: true };
  } finally {
    await http.close();
  }
}
