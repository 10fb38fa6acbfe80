import { afterEach, describe, expect, it, vi } from 'vitest';
import { fail, wantsJson } from '../../../src/cli/common.js';
import { CliError } from '../../../src/cli/program.js';
import { UnknownPluginError } from '../../../src/plugins/registry.js';
import { RunLockedError } from '../../../src/store/run-lock.js';

/** Run `fail` and capture what it prints. */
function printed(err: unknown, argv: string[], scrub?: (t: string) => string) {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((s) => {
    stdout += String(s);
    return true;
  });
  const errs = vi.spyOn(process.stderr, 'write').mockImplementation((s) => {
    stderr += String(s);
    return true;
  });
  try {
    const exit = fail(err, scrub, argv);
    return { exit, stdout, stderr };
  } finally {
    out.mockRestore();
    errs.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

describe('fail (how every harness command reports an error)', () => {
  it('prints an error without a code as before, and AEH_ERR_RUNTIME in machine output', () => {
    const plain = printed(new Error('disk full'), ['node', 'harness', 'runs']);
    expect(plain).toEqual({ exit: 3, stdout: '', stderr: 'harness: disk full\n' });
    const json = printed(new Error('disk full'), ['node', 'harness', 'runs', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ error: { code: 'AEH_ERR_RUNTIME', message: 'disk full', exit_code: 3 } });
  });

  it('leads with the code of a harness error and keeps its exit code', () => {
    const r = printed(new UnknownPluginError('adapter', 'ecko', ['echo']), ['node', 'harness', 'run', 's.yaml']);
    expect(r.exit).toBe(2);
    expect(r.stderr).toMatch(/^harness: \[AEH_ERR_UNKNOWN_PLUGIN\] /);
  });

  it('keeps the code of the error a CliError reports (its cause), else AEH_ERR_CLI', () => {
    const locked = new RunLockedError('runs/x', null);
    const wrapped = printed(new CliError(locked.message, 2, { cause: locked }), ['node', 'harness', 'x', '--json']);
    expect(JSON.parse(wrapped.stdout).error.code).toBe('AEH_ERR_RUN_LOCKED');
    expect(printed(new CliError('bad --limit'), ['node', 'harness']).stderr).toBe(
      'harness: [AEH_ERR_CLI] bad --limit\n',
    );
  });

  it('scrubs secrets from both outputs', () => {
    const r = printed(new Error('token sk-123456789 refused'), ['h', '--json'], (t) =>
      t.replace('sk-123456789', '[REDACTED]'),
    );
    expect(r.stderr + r.stdout).not.toContain('sk-123456789');
    expect(JSON.parse(r.stdout).error.message).toBe('token [REDACTED] refused');
  });
});

describe('wantsJson', () => {
  it('is true only for --json or a json-only --format', () => {
    expect(wantsJson(['run', 's.yaml'])).toBe(false);
    expect(wantsJson(['run', 's.yaml', '--format', 'console,json'])).toBe(false);
    expect(wantsJson(['run', 's.yaml', '--format', 'json'])).toBe(true);
    expect(wantsJson(['run', 's.yaml', '--format=json'])).toBe(true);
    expect(wantsJson(['runs', '--json'])).toBe(true);
  });
});
