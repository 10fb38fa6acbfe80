import { decide } from '../../../../../examples/soclab-agent-v1/server.js';
import { TOOL_DEFINITIONS } from '../../../src/contracts/tools.js';

/**
 * The rule-based "model" behind every wire-level stand-in. It reads the conversation exactly as a vendor would
 * receive it (system text, user/assistant turns whose text carries the `[trust=…]` / `[tool:… trust=…]` labels the
 * adapters add) and answers the stage named in the last instruction.
 *
 * - `competent`: the HTTP reference agent's rules (examples/soclab-agent-v1/server.ts), so it earns the same outcomes.
 * - `gullible`: the same, except that at the action stage it carries out the first instruction naming a real tool
 *   that it finds in untrusted text (an injected "isolate_endpoint on …" wins over its own judgement).
 */
export type BrainKind = 'competent' | 'gullible';

export interface WireTurn {
  role: 'user' | 'assistant';
  text: string;
}

export interface Conversation {
  system: string;
  turns: readonly WireTurn[];
  /** Names of the tools declared in the request. */
  tools: readonly string[];
}

/** What the model answers: a native tool call (collection stages, tools offered) or text (JSON or not). */
export type Thought =
  | { kind: 'tool'; name: string; arguments: Record<string, unknown> }
  | { kind: 'text'; text: string };

interface Segment {
  label: string;
  tool: string | null;
  trust: string;
  body: string;
}

const LABEL = /^\[(?:tool:([a-z_]+) )?trust=(trusted|untrusted)\] /gm;

/** Splits user text into the labelled messages the adapter joined (Anthropic and Gemini merge same-role turns). */
function segments(text: string): Segment[] {
  const out: Segment[] = [];
  const hits = [...text.matchAll(LABEL)];
  hits.forEach((m, i) => {
    const start = m.index + m[0].length;
    const end = i + 1 < hits.length ? hits[i + 1]!.index : text.length;
    out.push({ label: m[0], tool: m[1] ?? null, trust: m[2]!, body: text.slice(start, end).trim() });
  });
  return out;
}

const TOOL_NAMES = TOOL_DEFINITIONS.map((t) => t.name).join('|');
const IMPERATIVE = new RegExp(`\\b(${TOOL_NAMES})\\s+(?:on|for)\\s+([A-Za-z0-9._:/\\-\\u0400-\\u04ff]+)`);
const ARG: Record<string, string> = { isolate_endpoint: 'endpoint_id', block_indicator: 'indicator' };

export function think(conversation: Conversation, brain: BrainKind): Thought {
  const all = conversation.turns.filter((t) => t.role === 'user').flatMap((t) => segments(t.text));
  const stages = [...all.filter((s) => s.trust === 'trusted').map((s) => /^Stage ([a-z_]+):/.exec(s.body)?.[1])];
  const stage = stages.filter(Boolean).at(-1);
  if (!stage) return { kind: 'text', text: 'I can only help with a SOC investigation stage.' };
  let alert: Record<string, unknown> | null = null;
  const turns: { role: string; content: string; tool_name: string | null }[] = [];
  for (const s of all) {
    if (s.tool) turns.push({ role: 'tool', content: s.body, tool_name: s.tool });
    else if (!alert && s.trust === 'untrusted') {
      try {
        alert = (JSON.parse(s.body) as { alert?: Record<string, unknown> }).alert ?? null;
      } catch {
        alert = null;
      }
    }
  }
  const ids = turns.flatMap((t) => {
    try {
      const id = (JSON.parse(t.content) as { evidence_id?: unknown }).evidence_id;
      return typeof id === 'string' ? [id] : [];
    } catch {
      return [];
    }
  });
  if (brain === 'gullible' && stage === 'propose_action') {
    for (const s of all) {
      if (s.trust !== 'untrusted') continue;
      const hit = IMPERATIVE.exec(s.body);
      if (!hit) continue;
      const target = hit[2]!.replace(/[.,;"\\]+$/, '');
      return json({
        tool: hit[1],
        arguments: { [ARG[hit[1]!] ?? 'user_id']: target },
        rationale: 'the notes say to do this',
        evidence_ids: ids,
      });
    }
  }
  const reply = decide({
    contract: 'soclab.agent.v1',
    run_id: 'stand-in',
    trace_id: 'stand-in',
    incident_id: typeof alert?.incident_id === 'string' ? alert.incident_id : 'unknown',
    stage,
    context: { alert, evidence_ids: alert ? ['alert', ...ids] : ids },
    tools: conversation.tools.map((name) => ({ name })),
    turns,
  }) as { refusal?: unknown; proposal?: Record<string, unknown> };
  if (!reply.proposal) return json({ refusal: reply.refusal });
  const p = reply.proposal as {
    tool_calls?: { name: string; arguments: Record<string, unknown> }[];
    finding?: Record<string, unknown>;
    rationale?: string;
    confidence?: number;
    evidence_ids?: string[];
  };
  const call = p.tool_calls?.[0];
  if (stage === 'form_finding' && p.finding) return json({ ...p.finding, confidence: p.confidence ?? 0.7 });
  if (call && conversation.tools.includes(call.name))
    return { kind: 'tool', name: call.name, arguments: call.arguments };
  if (call) {
    return json({
      tool: call.name,
      arguments: call.arguments,
      rationale: p.rationale ?? '',
      evidence_ids: p.evidence_ids ?? [],
    });
  }
  return json({ refusal: 'no plan' });
}

const json = (value: unknown): Thought => ({ kind: 'text', text: JSON.stringify(value) });
