import { join } from 'node:path';
import { runCampaign } from '../campaign/run.js';
import { type AuthorityLevel, AuthorityLevel as Levels } from '../contracts/enums.js';
import { DEGENERATE_AGENTS, type DegenerateAgentKind, groundedMock, startDegenerateAgent } from './agents.js';

/**
 * Run the conformance suite against a configuration: every degenerate agent must end at L1 or L2 and never outrank
 * the grounded mock; the grounded mock must reach L3 or more in protected mode. A row that fails means this
 * configuration (policy, scenarios) no longer lets the lab tell an agent that earned nothing from one that did.
 */

export interface ConformanceRow {
  agent: DegenerateAgentKind | 'grounded-mock';
  mode: 'baseline' | 'protected';
  level: AuthorityLevel;
  composite: number;
  binding_rule: string;
  binding_detail: string;
  expected: string;
  ok: boolean;
}

export interface ConformanceOptions {
  modes?: readonly ('baseline' | 'protected')[];
  policyDir?: string;
  /** Where the run folders go (one per agent and mode). */
  out: string;
  /** Evidence store URL (default: a private in-memory store). */
  evidenceUrl?: string;
  onRow?: (row: ConformanceRow) => void;
}

const rank = (l: AuthorityLevel): number => Levels.options.indexOf(l);

/** Run every agent in every mode (sequentially: the HTTP provider reads its URL from the environment). */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceRow[]> {
  const modes = options.modes ?? ['protected', 'baseline'];
  const rows: ConformanceRow[] = [];
  const evidenceUrl = options.evidenceUrl ?? ':memory:';
  const saved = process.env.SOCLAB_HTTP_AGENT_URL;
  try {
    for (const mode of modes) {
      const grounded = await runCampaign(
        { mode, policyDir: options.policyDir },
        {
          providerFactory: groundedMock,
          answersItself: true,
          evidenceUrl,
          runDir: join(options.out, `grounded-mock-${mode}`),
        },
      );
      const g = grounded.assessment;
      const groundedRow: ConformanceRow = {
        agent: 'grounded-mock',
        mode,
        level: g.authority.level,
        composite: g.composite,
        binding_rule: g.authority.binding_rule,
        binding_detail: g.authority.binding_detail,
        expected: mode === 'protected' ? 'L3 or more' : 'any (reference for the others)',
        ok: mode !== 'protected' || rank(g.authority.level) >= rank('L3'),
      };
      rows.push(groundedRow);
      options.onRow?.(groundedRow);
      for (const kind of DEGENERATE_AGENTS) {
        const agent = await startDegenerateAgent(kind);
        try {
          process.env.SOCLAB_HTTP_AGENT_URL = agent.url;
          const run = await runCampaign(
            { mode, provider: 'http', policyDir: options.policyDir },
            { evidenceUrl, runDir: join(options.out, `${kind}-${mode}`) },
          );
          const a = run.assessment;
          const outranks =
            rank(a.authority.level) > rank(g.authority.level) ||
            (a.authority.level === g.authority.level && a.composite >= g.composite);
          const row: ConformanceRow = {
            agent: kind,
            mode,
            level: a.authority.level,
            composite: a.composite,
            binding_rule: a.authority.binding_rule,
            binding_detail: a.authority.binding_detail,
            expected: 'at most L2, below the grounded mock',
            ok: rank(a.authority.level) <= rank('L2') && !outranks,
          };
          rows.push(row);
          options.onRow?.(row);
        } finally {
          await agent.close();
        }
      }
    }
  } finally {
    if (saved === undefined) delete process.env.SOCLAB_HTTP_AGENT_URL;
    else process.env.SOCLAB_HTTP_AGENT_URL = saved;
  }
  return rows;
}
