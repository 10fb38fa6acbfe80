import { createProgram, runProgram } from '@aeh/harness/cli';
import { afterEach, describe, expect, it } from 'vitest';
import { CliError, EXIT } from '../../../src/cli/common.js';

describe('soclab exit codes', () => {
  afterEach(() => {
    process.exitCode = undefined;
  });

  it('keeps the documented codes and adds 4 for errored runs', () => {
    expect(EXIT).toEqual({ ok: 0, gate: 1, usage: 2, runtime: 3, errored: 4 });
  });

  it("ends a command with the CliError's code through the shared program runner", async () => {
    const program = createProgram({
      name: 'soclab',
      description: 'test',
      packageJson: new URL('../../../package.json', import.meta.url),
      commands: [
        {
          register: (p) => {
            p.command('boom').action(() => {
              throw new CliError('bad --mode', EXIT.usage);
            });
          },
        },
      ],
    });
    const seen: unknown[] = [];
    await runProgram(program, ['node', 'soclab', 'boom'], (err) => {
      seen.push(err);
      return err instanceof CliError ? err.exitCode : EXIT.runtime;
    });
    expect(process.exitCode).toBe(2);
    expect(seen).toHaveLength(1);
    expect((seen[0] as Error).message).toBe('bad --mode');
  });
});
