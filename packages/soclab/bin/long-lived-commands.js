// The soclab commands that run until stopped. One list for the two places that treat them differently:
// bin/soclab.js (V8 flags, source maps) runs before anything else is loaded, so this is plain JavaScript with no
// imports, and src/cli/zod-mode.ts (zod's compiled parsers) imports it from here.
export const LONG_LIVED_COMMANDS = Object.freeze(['serve', 'worker', 'mcp']);
