import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Agent, RunContext } from '../../../src/adapters/base.js';
import { SubprocessOptions, type SubprocessOptionsInput } from '../../../src/adapters/subprocess/options.js';
import { subprocessAdapter } from '../../../src/adapters/subprocess.js';
import { TestCase } from '../../../src/core/testcase.js';
import { defined } from '../../helpers/defined.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const node = process.execPath;
const agents: Agent[] = [];

function ctx(input: unknown = 'hi', extra: Partial<RunContext> = {}): RunContext {
  return {
    signal: new AbortController().signal,
    testCase: TestCase.parse({ id: 'case-7', name: 'Case 7', input }),
    repeat: 1,
    attempt: 1,
    vars: { flag: '--fast' },
    ...extra,
  };
}

async function make(options: SubprocessOptionsInput, env: Record<string, string | undefined> = process.env) {
  const agent = await subprocessAdapter.create(SubprocessOptions.parse(options), { baseDir: here, env });
  agents.push(agent);
  return agent;
}

/** True while the process exists and is not a zombie waiting to be reaped by init. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

/** Polls until the process is gone, for up to 20 s (a loaded machine can be slow to deliver the kill). */
async function waitDead(pid: number): Promise<boolean> {
  const until = Date.now() + 20_000;
  while (alive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
}

/**
 * Waits for the hung agent to record its grandchild's pid (node can take seconds to start on a loaded machine).
 * The file exists, empty, for a moment before the pid is written: wait for the pid itself.
 */
async function waitForPidFile(file: string): Promise<void> {
  const until = Date.now() + 30_000;
  const written = () => existsSync(file) && /^\d+$/.test(readFileSync(file, 'utf8'));
  while (!written() && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
}

afterAll(async () => {
  await Promise.all(agents.map((a) => a.close?.()));
});

describe('subprocess adapter, one process per case', () => {
  it('sends the input on stdin and reads a JSON reply with tool calls and usage', async () => {
    const agent = await make({ command: [node, 'agents/once-agent.mjs'] });
    const out = await agent.run({ q: 'capital?' }, ctx({ q: 'capital?' }));
    expect(out.error).toBeNull();
    expect(out.output).toBe('echo: {"q":"capital?"}');
    expect(out.tool_calls[0]).toMatchObject({ tool_name: 'echo', args: { text: { q: 'capital?' } } });
    expect(out.usage).toEqual({ input_tokens: 3, output_tokens: 2, estimated: false });
    expect(out.metadata.exit_code).toBe(0);
  });

  it('reads plain text output and templates arguments', async () => {
    const text = await make({ command: `"${node}" agents/once-agent.mjs`, output: 'text' });
    expect((await text.run('text', ctx('text'))).output).toBe('plain answer');
    const args = await make({ command: [node, 'agents/once-agent.mjs', '{{vars.flag}}', 'case={{test.id}}'] });
    expect((await args.run('args', ctx('args'))).output).toBe('--fast|case=case-7');
  });

  it('reports a crash with its exit code and stderr', async () => {
    const agent = await make({ command: [node, 'agents/once-agent.mjs'] });
    const out = await agent.run('crash', ctx('crash'));
    expect(out.error).toBe('process exited with code 2: fatal: the model file is missing');
    expect(out.metadata).toMatchObject({ exit_code: 2, stderr: 'fatal: the model file is missing\n' });
    expect(out.output).toBe('');
  });

  it('kills the whole process group of a hung agent on timeout', async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), 'harness-test-')), 'grandchild.pid');
    // The timeout leaves room for node to start and write the pid file even on a loaded machine.
    const agent = await make({ command: [node, 'agents/once-agent.mjs'], timeout: 5, kill_grace: 0.2 });
    const out = await agent.run(`hang ${pidFile}`, ctx());
    expect(out.error).toMatch(/^process timed out after 5 s; its process group was killed/);
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    expect(await waitDead(grandchild)).toBe(true);
  });

  it('kills the process group when the run aborts the case', async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), 'harness-test-')), 'grandchild.pid');
    const agent = await make({ command: [node, 'agents/once-agent.mjs'], kill_grace: 0.2 });
    const ac = new AbortController();
    const pending = agent.run(`hang ${pidFile}`, ctx('x', { signal: ac.signal }));
    await waitForPidFile(pidFile);
    ac.abort();
    const out = await pending;
    expect(out.error).toMatch(/aborted/);
    expect(await waitDead(Number(readFileSync(pidFile, 'utf8')))).toBe(true);
  });

  it('passes only allowed environment variables, sets per-case context and a temporary workspace', async () => {
    const env = { ...process.env, AGENT_TOKEN: 'secret-token-123', UNLISTED: 'nope' };
    const agent = await make(
      // With a temporary workspace the cwd is that directory, so the script path must be absolute.
      {
        command: [node, join(here, 'agents/once-agent.mjs')],
        env: { AGENT_MODE: 'strict' },
        env_allow: ['PATH', 'AGENT_TOKEN'],
        temp_workspace: true,
      },
      env,
    );
    const out = await agent.run('where', ctx('where'));
    const seen = out.output as Record<string, unknown>;
    expect(seen.visible).toEqual([
      'AGENT_MODE',
      'AGENT_TOKEN',
      'HARNESS_ATTEMPT',
      'HARNESS_REPEAT',
      'HARNESS_TEST_ID',
      'HARNESS_WORKSPACE',
      'PATH',
    ]);
    expect(seen).toMatchObject({ test_id: 'case-7', mode: 'strict', token: '[REDACTED]' });
    expect(seen.cwd).toBe(seen.workspace);
    expect(existsSync(seen.workspace as string)).toBe(false);
  });

  it('runs in a templated working directory relative to the suite folder', async () => {
    const agent = await make({ command: [node, 'once-agent.mjs'], cwd: 'agents' });
    const out = await agent.run('where', ctx('where'));
    expect((out.output as Record<string, unknown>).cwd).toBe(join(here, 'agents'));
  });

  it('limits stdout size and reports a missing command', async () => {
    const big = await make({ command: [node, 'agents/once-agent.mjs'], max_output_bytes: 100_000 });
    expect((await big.run('big', ctx('big'))).error).toMatch(/more than max_output_bytes \(100000\)/);
    const missing = await make({ command: 'definitely-not-a-command-xyz' });
    expect((await missing.run('x', ctx())).error).toMatch(/command not found .*definitely-not-a-command-xyz/);
  });
});

describe('subprocess adapter, persistent JSON-lines process', () => {
  it('keeps one process, matches replies to concurrent requests by id', async () => {
    const agent = await make({ command: [node, 'agents/jsonl-agent.mjs'], mode: 'jsonl' });
    const outs = await Promise.all(
      [30, 0, 15].map((delay, i) => agent.run({ text: `q${i}`, delay }, ctx({ text: `q${i}`, delay }))),
    );
    expect(outs.map((o) => o.output)).toEqual(['echo: q0', 'echo: q1', 'echo: q2']);
    const started = new Set(outs.map((o) => defined(o.tool_calls[0], 'the first tool call').args.started));
    expect(started.size).toBe(1);
    const context = (await agent.run('context', ctx('context'))).output as Record<string, unknown>;
    expect(context).toMatchObject({ test_id: 'case-7', repeat: 1, attempt: 1, vars: { flag: '--fast' } });
    expect((await agent.run('fail', ctx('fail'))).error).toBe('I cannot answer that');
  });

  it('reports a crash with exit code and stderr, then starts a fresh process', async () => {
    const agent = await make({ command: [node, 'agents/jsonl-agent.mjs'], mode: 'jsonl' });
    const before = (await agent.run('pid', ctx('pid'))).output;
    const crash = await agent.run('crash', ctx('crash'));
    expect(crash.error).toMatch(/^process exited with code 3: .*segfault-ish: cannot continue/);
    const after = (await agent.run('pid', ctx('pid'))).output;
    expect(after).not.toBe(before);
    expect(alive(Number(before))).toBe(false);
  });

  it('kills a hung process on timeout and restarts it; other in-flight cases fail as transient', async () => {
    const agent = await make({
      command: [node, 'agents/jsonl-agent.mjs'],
      mode: 'jsonl',
      timeout: 4,
      kill_grace: 0.2,
    });
    const pid = Number((await agent.run('pid', ctx('pid'))).output);
    const hungRun = agent.run('hang', ctx('hang'));
    // The bystander goes out 1.5 s after the hung case: 2.5 s before the hung case times out (so it is in flight
    // then), and its own timeout comes 1.5 s after the hung one's (time for the killed process to exit and fail
    // it as restarted), wide margins on a loaded machine.
    await new Promise((r) => setTimeout(r, 1500));
    const [hung, bystander] = await Promise.all([hungRun, agent.run({ text: 'slow', delay: 20_000 }, ctx('slow'))]);
    expect(hung.error).toBe('no reply within 4 s (timeout)');
    expect(bystander.transient).toBe(true);
    expect(bystander.error).toMatch(/agent process was restarted: case case-7 \(request \d+\) timed out/);
    expect(await waitDead(pid)).toBe(true);
    const fresh = await agent.run('again', ctx('again'));
    expect(fresh.output).toBe('echo: again');
  });

  it('closes the process when the adapter is closed', async () => {
    const agent = await make({ command: [node, 'agents/jsonl-agent.mjs'], mode: 'jsonl' });
    const pid = Number((await agent.run('pid', ctx('pid'))).output);
    await agent.close?.();
    expect(await waitDead(pid)).toBe(true);
  });
});
