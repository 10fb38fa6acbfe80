import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { RunEnvironment } from '../core/experiment.js';

let cachedVersion: string | undefined;

/** The harness package version (from its package.json). */
export function toolVersion(): string {
  if (cachedVersion) return cachedVersion;
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    cachedVersion = pkg.version ?? '0.0.0';
  } catch {
    cachedVersion = '0.0.0';
  }
  return cachedVersion;
}

/** The current git commit of `cwd`, or null when it is not a repository or git is absent. */
export function gitCommit(cwd = process.cwd()): string | null {
  try {
    const out = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd,
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 2000,
      encoding: 'utf8',
    }).trim();
    return /^[0-9a-f]{40}$/.test(out) ? out : null;
  } catch {
    return null;
  }
}

/** What a run was executed with: tool version, Node version, platform, git commit if any. */
export function captureEnvironment(cwd = process.cwd()): RunEnvironment {
  return {
    tool_version: toolVersion(),
    node_version: process.version,
    platform: `${process.platform}-${process.arch}`,
    git_commit: gitCommit(cwd),
  };
}
