// The example HTTP agent (examples/http-agent/server.mjs) as a benchmark target: a separate process on an ephemeral
// loopback port answering after a fixed latency, so its own CPU is never counted against the tool being measured.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { itemAt } from '../../packages/harness/src/core/item-at.js';

export interface LoopbackHttpAgent {
  /** Base URL, e.g. http://127.0.0.1:41234 (POST /ask answers { answer, steps, usage }). */
  url: string;
  stop: () => void;
}

const server = join(import.meta.dirname, '../../examples/http-agent/server.mjs');

/** Start the example agent answering after `latencyMs`; resolves once it prints the address it listens on. */
export async function startLoopbackHttpAgent(latencyMs: number): Promise<LoopbackHttpAgent> {
  const child = spawn(process.execPath, [server, '--port', '0', '--latency', String(latencyMs)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (c: Buffer) => {
      text += c.toString();
      const m = /listening on (\S+)/.exec(text);
      if (m) resolve(itemAt(m, 1));
    });
    child.on('exit', (code) => reject(new Error(`the loopback HTTP agent exited with ${code} before listening`)));
  });
  // A benchmark that throws must not leave the agent running.
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
  };
  process.on('exit', stop);
  return { url, stop };
}
