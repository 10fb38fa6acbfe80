import type * as ChildProcess from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
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

const SHA1 = /^[0-9a-f]{40}$/;

/**
 * `git rev-parse HEAD` read from the files git keeps, without starting git (a process start costs ~40 ms of every
 * run). Handles a `.git` folder or `.git` file (worktree, submodule), a detached HEAD, loose and packed refs.
 * Returns null where git would fail (no repository, unborn branch) and undefined where only git itself can say
 * (GIT_DIR and friends set, reftable refs, anything unexpected).
 */
export function readGitHead(cwd: string): string | null | undefined {
  if (process.env.GIT_DIR || process.env.GIT_WORK_TREE || process.env.GIT_COMMON_DIR) return undefined;
  if (process.env.GIT_CEILING_DIRECTORIES || process.env.GIT_DISCOVERY_ACROSS_FILESYSTEM) return undefined;
  try {
    let dir = resolve(cwd);
    let dotGit: string | undefined;
    for (;;) {
      if (existsSync(join(dir, '.git'))) {
        dotGit = join(dir, '.git');
        break;
      }
      // Inside a bare repository (or a .git folder itself): leave it to git.
      if (['HEAD', 'objects', 'refs'].every((f) => existsSync(join(dir, f)))) return undefined;
      const up = dirname(dir);
      if (up === dir) return null;
      dir = up;
    }
    let gitDir = dotGit;
    if (!statSync(dotGit).isDirectory()) {
      const [, pointer] = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8')) ?? [];
      if (pointer === undefined) return undefined;
      gitDir = resolve(dir, pointer.trim());
    }
    const commonFile = join(gitDir, 'commondir');
    const commonDir = existsSync(commonFile) ? resolve(gitDir, readFileSync(commonFile, 'utf8').trim()) : gitDir;
    if (existsSync(join(commonDir, 'reftable'))) return undefined;
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
    if (SHA1.test(head)) return head;
    const ref = /^ref: (refs\/\S+)$/.exec(head)?.[1];
    if (!ref) return undefined;
    for (const base of [gitDir, commonDir]) {
      const loose = join(base, ref);
      if (existsSync(loose)) {
        const sha = readFileSync(loose, 'utf8').trim();
        return SHA1.test(sha) ? sha : undefined;
      }
    }
    const packed = join(commonDir, 'packed-refs');
    if (existsSync(packed)) {
      for (const line of readFileSync(packed, 'utf8').split('\n')) {
        const [sha, name] = line.split(' ');
        if (name?.trim() === ref && sha && SHA1.test(sha)) return sha;
      }
    }
    // The branch has no commit yet: `git rev-parse HEAD` fails there too.
    return null;
  } catch {
    return undefined;
  }
}

/** The current git commit of `cwd`, or null when it is not a repository or git is absent. */
export function gitCommit(cwd = process.cwd()): string | null {
  const fromFiles = readGitHead(cwd);
  if (fromFiles !== undefined) return fromFiles;
  try {
    // Required here only: most runs read the commit from .git's files, and child_process (with net and dgram) is ~2.5%
    // of a 1-case run to load.
    const { execFileSync } = createRequire(import.meta.url)('node:child_process') as typeof ChildProcess;
    const out = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd,
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 2000,
      encoding: 'utf8',
    }).trim();
    return SHA1.test(out) ? out : null;
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
