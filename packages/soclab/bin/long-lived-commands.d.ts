/** The soclab commands that run until stopped (serve, worker, mcp); see long-lived-commands.js. */
export declare const LONG_LIVED_COMMANDS: readonly string[];
