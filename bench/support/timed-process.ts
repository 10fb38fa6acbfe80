// One command under GNU time: wall clock from spawn to exit (our own clock), user+sys CPU and peak RSS of the
// process tree. GNU time writes its figures to a file of their own, so a tool's warnings on stderr cannot be
// mistaken for them.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { itemAt } from '../../packages/harness/src/core/item-at.js';

export interface ProcessFigures {
  /** Seconds from spawn to exit. */
  wall: number;
  /** User + system CPU seconds. */
  cpu: number;
  /** Peak resident set size, MiB. */
  rssMb: number;
}

export interface TimedProcess extends ProcessFigures {
  status: number | null;
  stdout: string;
  stderr: string;
}

export const GNU_TIME = '/usr/bin/time';

/** True when GNU time is installed (the figures need it: `apt-get install time`). */
export const hasGnuTime = (): boolean => existsSync(GNU_TIME);

/** Run `command args` to completion under GNU time; stdout and stderr are captured for the caller to check. */
export function timedProcess(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): TimedProcess {
  const dir = mkdtempSync(join(tmpdir(), 'bench-time-'));
  const figures = join(dir, 'time.txt');
  try {
    const t0 = performance.now();
    const r = spawnSync(GNU_TIME, ['-o', figures, '-f', '%U %S %M', command, ...args], {
      cwd: options.cwd,
      env: options.env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 256 * 1024 * 1024,
    });
    const wall = (performance.now() - t0) / 1000;
    if (r.error) throw r.error;
    // With a non-zero exit GNU time writes "Command exited with non-zero status N" first; the figures are last.
    const lines = readFileSync(figures, 'utf8').trim().split('\n');
    const m = /^([\d.]+) ([\d.]+) (\d+)$/.exec(itemAt(lines, lines.length - 1));
    if (!m) throw new Error(`no figures from GNU time for ${command}: ${lines.join(' | ')}`);
    return {
      wall,
      cpu: Number(m[1]) + Number(m[2]),
      rssMb: Number(m[3]) / 1024,
      status: r.status,
      stdout: r.stdout,
      stderr: r.stderr,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Median of each figure on its own (the middle wall, the middle CPU, the middle RSS). */
export function medianFigures(runs: ProcessFigures[]): ProcessFigures {
  if (runs.length === 0) throw new RangeError('no runs to take a median of');
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const mid = Math.floor(s.length / 2);
    return s.length % 2 === 1 ? itemAt(s, mid) : (itemAt(s, mid - 1) + itemAt(s, mid)) / 2;
  };
  return {
    wall: median(runs.map((r) => r.wall)),
    cpu: median(runs.map((r) => r.cpu)),
    rssMb: median(runs.map((r) => r.rssMb)),
  };
}
