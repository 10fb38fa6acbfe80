/**
 * Docs that work when copied: every shell block in README.md and docs/ is extracted; a harness or soclab
 * command must be written with npx (a bare `harness` is "command not found" in a fresh clone), and every
 * runnable one is run at the repository root's contents (in a temp copy, so the repository stays clean).
 * Not run (each with its reason): servers, distributed and model-backed runs, and commands that name a file
 * the reader is meant to supply.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type DocCommand, docCommands } from './shell-blocks.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const commands = docCommands(ROOT);

/** Commands not run, by pattern, and why. */
const NOT_RUN: [RegExp, string][] = [
  [/ (serve|view|worker)\b/, 'starts a server'],
  [/--queue\b|redis:\/\//, 'needs Redis and workers'],
  [/--judge\b|judge calibrate|--provider (?!mock\b)\w+|\bvendor\b/, 'calls a model provider (needs a key)'],
  // Each of these is a minute of CPU or more on two cores; the same code paths run in their own tests.
  [
    /--ablate\b|\bconformance\b|soclab compare\b|--repeats [2-9]|--incident \S+,|\bbench\b|\bfuzz\b/,
    'long run (covered by its own tests)',
  ],
  [/soclab demo --(seed|out)\b/, 'a variant of soclab demo, which runs once'],
  [/<[^>]*>|\.\.\.|\[[^\]]*\]|\$\{?[A-Z_]+/, 'has a placeholder for the reader to fill in'],
  [/\bmcp\b|--mcp|SOCLAB_MCP/, 'starts an MCP agent process'],
  [/--write\b/, 'rewrites the named file in place'],
  [/\bmerge shard-/, 'merges the shard runs of the commands above it, which need the reader’s suite'],
];

/** What the commands' working copy holds (see the test below). */
const COPIED = ['examples', 'benchmarks', 'packages'];

const INPUT = /\.(ya?ml|jsonl?|ts|sqlite|csv)$/;
const OUTPUT_FLAGS = new Set(['-o', '--out', '--db', '--record', '--write']);

/** Why a `npx harness|soclab` command is not run here, or null when it is runnable. */
function notRunnable(c: DocCommand): string | null {
  for (const [pattern, why] of NOT_RUN) if (pattern.test(c.command)) return why;
  const words = c.command.split(/\s+/);
  for (let i = 0; i < words.length; i++) {
    // An environment assignment names a path too (SOCLAB_POLICY_DIR=./my-policy).
    const w = (words[i] as string).replace(/^[A-Z_]+=/, '').replace(/^["']|["']$/g, '');
    if (w.startsWith('-') || w.startsWith('>')) continue;
    if (OUTPUT_FLAGS.has(words[i - 1] as string) && !w.startsWith('/')) continue;
    if ((words[i - 1] ?? '').startsWith('>')) continue;
    const path = w.startsWith('/') ? w : join(ROOT, w);
    const named = INPUT.test(w) || /^(runs\/|\.\/|\/)/.test(w);
    // Judged by what the temp copy holds, not by the checkout: a local `runs/` left by an earlier demo must not
    // make a command runnable here that a clean clone skips.
    const copied = w.startsWith('/') || COPIED.some((folder) => w.replace(/^\.\//, '').startsWith(`${folder}/`));
    if (named && (!copied || !existsSync(path))) return `names ${w}, a file the reader supplies`;
  }
  return null;
}

const isTool = (c: DocCommand) => /^(\w+=\S+\s+)*npx (harness|soclab)\b/.test(c.command);
// The same command written in two places runs once.
const runnable = [
  ...new Map(commands.filter((c) => isTool(c) && notRunnable(c) === null).map((c) => [c.command, c])).values(),
];

const work = mkdtempSync(join(tmpdir(), 'docs-commands-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function runIn(dir: string, c: DocCommand): Promise<{ code: number | null; out: string }> {
  const bin = (tool: string) => `node ${join(ROOT, `packages/${tool}/bin/${tool}.js`)}`;
  const line = c.command.replace(/\bnpx (harness|soclab)\b/g, (_m, tool: string) => bin(tool));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: dir, NO_COLOR: '1', CI: '1' };
  return new Promise((done) => {
    const child = spawn('bash', ['-c', line], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, out: out.slice(-2000) });
    });
  });
}

describe('docs that work when copied', () => {
  it('finds the shell blocks of the README and docs/', () => {
    expect(commands.length).toBeGreaterThan(50);
    expect(commands.some((c) => c.file === 'README.md')).toBe(true);
  });

  it('writes every harness and soclab command with npx (a bare name is "command not found" in a clone)', () => {
    const bare = commands.filter((c) => /^(\w+=\S+\s+)*(harness|soclab)\s/.test(c.command));
    expect(bare.map((c) => `${c.file}:${c.line}: ${c.command}`)).toEqual([]);
  });

  it('runs every runnable harness and soclab command (exit 0, or 1 where a gate fails by design)', async () => {
    expect(runnable.length).toBeGreaterThanOrEqual(10);
    // A copy of what the commands read; packages are linked (read only: the CLIs and their data).
    const dir = join(work, 'repo');
    for (const folder of COPIED.filter((f) => f !== 'packages'))
      cpSync(join(ROOT, folder), join(dir, folder), { recursive: true });
    symlinkSync(join(ROOT, 'packages'), join(dir, 'packages'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    const failures: string[] = [];
    // Two at a time: the CI machine has two cores.
    const queue = [...runnable];
    await Promise.all(
      [0, 1].map(async () => {
        for (let c = queue.shift(); c; c = queue.shift()) {
          const started = Date.now();
          const r = await runIn(dir, c);
          if (process.env.DOCS_TIMING) console.log(`${Date.now() - started} ms  ${c.file}:${c.line} ${c.command}`);
          if (r.code !== 0 && r.code !== 1)
            failures.push(`${c.file}:${c.line}: ${c.command}\n  exit ${r.code}: ${r.out}`);
        }
      }),
    );
    expect(failures).toEqual([]);
  }, 240_000);
});
