import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitCommit, readGitHead } from '../../../src/runner/environment.js';

// The run records `git rev-parse HEAD` of the suite's folder; it is read from git's files (no git process per run).
// Every case compares with what real git answers in the same folder.
const git = (cwd: string, ...args: string[]) =>
  spawnSync(
    'git',
    ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'init.defaultBranch=main', ...args],
    {
      cwd,
      encoding: 'utf8',
    },
  );
const revParse = (cwd: string): string | null => {
  const r = git(cwd, 'rev-parse', 'HEAD');
  return r.status === 0 ? r.stdout.trim() : null;
};
const hasGit = git(tmpdir(), '--version').status === 0;
const scratch = () => realpathSync(mkdtempSync(join(tmpdir(), 'aeh-git-head-')));

function repoWithCommit(): string {
  const d = scratch();
  git(d, 'init', '-q');
  writeFileSync(join(d, 'a.txt'), 'a\n');
  git(d, 'add', 'a.txt');
  git(d, 'commit', '-q', '-m', 'first');
  return d;
}

describe.skipIf(!hasGit)('git commit of a run, read without starting git', () => {
  it('is null outside a repository and on a branch with no commit yet, as git says', () => {
    const outside = scratch();
    expect(revParse(outside)).toBeNull();
    expect(gitCommit(outside)).toBeNull();
    const unborn = scratch();
    git(unborn, 'init', '-q');
    expect(revParse(unborn)).toBeNull();
    expect(readGitHead(unborn)).toBeNull();
  });

  it('matches git rev-parse HEAD: loose ref, subfolder, packed refs, detached HEAD', () => {
    const d = repoWithCommit();
    const first = revParse(d);
    expect(first).toMatch(/^[0-9a-f]{40}$/);
    expect(readGitHead(d)).toBe(first);
    mkdirSync(join(d, 'suites', 'deep'), { recursive: true });
    expect(readGitHead(join(d, 'suites', 'deep'))).toBe(first);
    writeFileSync(join(d, 'b.txt'), 'b\n');
    git(d, 'add', 'b.txt');
    git(d, 'commit', '-q', '-m', 'second');
    git(d, 'pack-refs', '--all');
    const second = revParse(d);
    expect(second).not.toBe(first);
    expect(readGitHead(d)).toBe(second);
    git(d, 'checkout', '-q', '--detach', first!);
    expect(readGitHead(d)).toBe(first);
  });

  it('matches git in a linked worktree (a .git file) after a commit made there', () => {
    const d = repoWithCommit();
    const wt = join(scratch(), 'wt');
    expect(git(d, 'worktree', 'add', '-q', '-b', 'side', wt).status).toBe(0);
    writeFileSync(join(wt, 'c.txt'), 'c\n');
    git(wt, 'add', 'c.txt');
    git(wt, 'commit', '-q', '-m', 'on side');
    expect(readGitHead(wt)).toBe(revParse(wt));
    expect(readGitHead(d)).toBe(revParse(d));
    expect(revParse(wt)).not.toBe(revParse(d));
  });

  it('leaves it to git when GIT_DIR is set', () => {
    const d = repoWithCommit();
    const before = process.env.GIT_DIR;
    process.env.GIT_DIR = join(d, '.git');
    try {
      expect(readGitHead(scratch())).toBeUndefined();
      expect(gitCommit(scratch())).toBe(revParse(d));
    } finally {
      if (before === undefined) delete process.env.GIT_DIR;
      else process.env.GIT_DIR = before;
    }
  });
});
