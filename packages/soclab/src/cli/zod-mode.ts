/**
 * Zod compiles a parser for each object schema (`new Function`) the first time it parses with it. A short command
 * parses each schema a few dozen times at most, so compiling costs more than it returns (fresh `soclab demo`: about
 * 4% of its CPU); the servers and workers parse for as long as they run and keep the compiled parsers. Zod reads
 * the setting when a schema is built, so this module is the CLI entry's first import: it runs before any soclab or
 * harness schema exists. Validation is the same either way (zod's interpreted and compiled paths accept and reject
 * alike; the seeded demo's reports are byte-identical).
 */
import { z } from 'zod';
// The list bin/soclab.js reads too (it keeps WebAssembly tier-up for these commands): one definition, in plain JS.
import { LONG_LIVED_COMMANDS } from '../../bin/long-lived-commands.js';

/** True when the command named in `argv` is short-lived, so zod should interpret rather than compile. */
export const zodJitlessWanted = (argv: readonly string[]): boolean => !LONG_LIVED_COMMANDS.includes(argv[2] ?? '');

if (zodJitlessWanted(process.argv)) z.config({ jitless: true });
