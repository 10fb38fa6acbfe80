/**
 * The seed's suite format (the origin harness's `BenchmarkConfig`) read as this one, in place, before
 * validation: `agent.module` / `agent.config` become the adapter's options, and thresholds written `min` /
 * `max` become `minimum` / `maximum`. Everything else in a seed suite is already valid here. `harness migrate`
 * rewrites a file the same way for good.
 *
 * - `agent: { adapter: generic, module: "pkg.mod:fn", config: {...} }` → `{ adapter: generic, options:
 *   { module: "pkg.mod:fn", config: {...} } }` (the origin ran `module` with the generic adapter whatever
 *   `adapter` said, so a `module` always means `generic`);
 * - `agent: { adapter: mock, config: {...} }` → `{ adapter: mock, options: {...} }`;
 * - no `adapter` → `generic` (the origin's default).
 *
 * Adapter options the origin spelled differently are renamed (subprocess `timeout_seconds` → `timeout`,
 * `parse_json_output` → `output`; mock `responses` map → list); the ones with no equivalent are reported as
 * problems, each one sentence saying what to write instead.
 */
export function normalizeSeedSuite(raw: Record<string, unknown>): SeedNormalization {
  const changed: string[] = [];
  const problems: SeedProblem[] = [];
  const agent = raw.agent;
  if (agent && typeof agent === 'object' && !Array.isArray(agent)) {
    const a = agent as Record<string, unknown>;
    const hasSeedFields = 'module' in a || 'config' in a;
    if (hasSeedFields && !('options' in a)) {
      const config = a.config && typeof a.config === 'object' && !Array.isArray(a.config) ? a.config : {};
      if (typeof a.module === 'string') {
        if (a.adapter !== 'generic') changed.push('agent.adapter');
        a.adapter = 'generic';
        a.options = { module: a.module, ...(Object.keys(config).length > 0 ? { config } : {}) };
      } else {
        a.adapter ??= 'generic';
        a.options = config;
      }
      delete a.module;
      delete a.config;
      changed.push('agent.options');
      if (!('module' in (a.options as Record<string, unknown>))) {
        renameAdapterOptions(String(a.adapter), a.options as Record<string, unknown>, changed, problems);
      }
    }
  }
  const thresholds = raw.thresholds;
  if (thresholds && typeof thresholds === 'object' && !Array.isArray(thresholds)) {
    for (const [name, rule] of Object.entries(thresholds as Record<string, unknown>)) {
      if (!rule || typeof rule !== 'object' || Array.isArray(rule)) continue;
      const r = rule as Record<string, unknown>;
      for (const [short, long] of [
        ['min', 'minimum'],
        ['max', 'maximum'],
      ] as const) {
        if (short in r) {
          // As in the origin, the long spelling wins when both are written.
          if (!(long in r)) r[long] = r[short];
          delete r[short];
          changed.push(`thresholds.${name}.${long}`);
        }
      }
    }
  }
  return { changed, problems };
}

export interface SeedProblem {
  path: (string | number)[];
  message: string;
}

export interface SeedNormalization {
  /** Field paths rewritten. */
  changed: string[];
  /** Seed options with no equivalent here, each with what to write instead. */
  problems: SeedProblem[];
}

/** Seed adapter options with no equivalent, and what to write instead (one sentence each). */
const NO_EQUIVALENT: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  mock: {
    tool_calls: "put tool calls on a response instead: responses: [{ input: '...', output: '...', tool_calls: [...] }]",
    token_usage: 'the mock adapter reports no usage; drop token_usage (or use a module agent that returns usage)',
    cost: "put the cost on a response instead: responses: [{ input: '...', output: '...', cost: 0.001 }]",
    handler: 'a handler function cannot live in YAML; use adapter: module with options: { module: ./agent.ts#run }',
    should_error: "make a response fail instead: responses: [{ input: '...', error: 'Mock execution failure' }]",
    error_message: "make a response fail instead: responses: [{ input: '...', error: 'your message' }]",
  },
};

export function renameAdapterOptions(
  adapter: string,
  options: Record<string, unknown>,
  changed: string[],
  problems: SeedProblem[],
): void {
  if (adapter === 'subprocess') {
    if ('timeout_seconds' in options) {
      options.timeout = options.timeout_seconds;
      delete options.timeout_seconds;
      changed.push('agent.options.timeout');
    }
    if ('parse_json_output' in options) {
      options.output = options.parse_json_output === false ? 'text' : 'auto';
      delete options.parse_json_output;
      changed.push('agent.options.output');
    }
  }
  if (adapter === 'mock') {
    const r = options.responses;
    if (r && typeof r === 'object' && !Array.isArray(r)) {
      // The origin keyed responses by the exact (trimmed) input.
      options.responses = Object.entries(r as Record<string, unknown>).map(([input, output]) => ({ input, output }));
      changed.push('agent.options.responses');
    }
  }
  for (const [key, hint] of Object.entries(NO_EQUIVALENT[adapter] ?? {})) {
    if (key in options) {
      problems.push({ path: ['agent', 'config', key], message: `'${key}' has no equivalent here: ${hint}` });
      delete options[key];
    }
  }
}
