import { issuePath } from '@aeh/harness/zod-issues';
import { z } from 'zod';
import { AGENT_CONTRACT_ID } from './agent-v1-id.js';
import { RefusalCode, TrustLabel, WORKING_STAGES } from './enums.js';

/**
 * soclab.agent.v1: the wire contract between the lab and an agent behind an HTTP endpoint. One POST per stage
 * carries an AgentRequest; the agent answers with one AgentResponse holding exactly one of a proposal or a refusal.
 *
 * Versioning: additive optional fields keep this id. A change that would break an existing agent gets a new id
 * (`soclab.agent.v2`) and a new schema folder; the adapter never guesses across versions.
 *
 * The published JSON Schemas (`schemas/agent-v1/*.schema.json`) are generated from these models by
 * `npx tsx packages/soclab/scripts/generate-agent-v1-schemas.ts`; a test fails when they drift. Every rule the
 * models enforce with a refinement is also written as JSON Schema (`.meta`) so an independent validator agrees.
 */

export { AGENT_CONTRACT_ID };
export const AGENT_V1_SCHEMA_IDS = Object.freeze({
  request: 'urn:agent-assurance:soclab:agent-v1:request.schema.json',
  response: 'urn:agent-assurance:soclab:agent-v1:response.schema.json',
});

const NAME_PATTERN = /^[a-z][a-z0-9_]*$/;
const Name = z.string().regex(NAME_PATTERN, 'must match ^[a-z][a-z0-9_]*$');
const JsonObject = z.record(z.string(), z.unknown());

// ---------------------------------------------------------------- request

export const AgentTool = z
  .strictObject({
    name: Name,
    description: z.string().min(1),
    parameters: JsonObject.describe('JSON Schema of the arguments object'),
  })
  .meta({ title: 'AgentTool' });
export type AgentTool = z.infer<typeof AgentTool>;

export const AgentTurn = z
  .strictObject({
    role: z.enum(['system', 'user', 'assistant', 'tool']),
    content: z.string(),
    trust: TrustLabel.default('trusted'),
    tool_name: z.string().nullable().default(null),
  })
  .meta({ title: 'AgentTurn' });
export type AgentTurn = z.infer<typeof AgentTurn>;

export const AgentContext = z
  .strictObject({
    alert: JsonObject.nullable().default(null).describe('The alert as the orchestrator presented it. Untrusted data.'),
    evidence_ids: z
      .array(z.string().min(1))
      .default([])
      .describe('Every evidence id seen so far. A finding may cite only these.'),
  })
  .meta({ title: 'AgentContext' });
export type AgentContext = z.infer<typeof AgentContext>;

export const AgentRequest = z
  .strictObject({
    contract: z.literal(AGENT_CONTRACT_ID).default(AGENT_CONTRACT_ID),
    run_id: z.string().min(1),
    trace_id: z.string().min(1),
    incident_id: z.string().min(1),
    stage: z.enum(WORKING_STAGES),
    instruction: z.string().min(1),
    system_prompt: z.string().default(''),
    context: AgentContext,
    tools: z.array(AgentTool).default([]),
    response_schema: JsonObject.nullable().default(null),
    turns: z.array(AgentTurn).default([]),
    max_output_tokens: z.number().int().min(1).default(1024),
    temperature: z.number().min(0).max(2).default(0),
  })
  .meta({
    $id: AGENT_V1_SCHEMA_IDS.request,
    title: 'soclab.agent.v1 request',
    description: 'One POST per investigation stage, sent by the lab to the agent.',
  });
export type AgentRequest = z.infer<typeof AgentRequest>;
export type AgentRequestInput = z.input<typeof AgentRequest>;

// ---------------------------------------------------------------- response

export const AgentToolCall = z.strictObject({ name: Name, arguments: JsonObject }).meta({ title: 'AgentToolCall' });
export type AgentToolCall = z.infer<typeof AgentToolCall>;

export const AgentClaim = z
  .strictObject({ text: z.string().min(1), evidence_ids: z.array(z.string().min(1)).optional() })
  .meta({ title: 'AgentClaim' });
export type AgentClaim = z.infer<typeof AgentClaim>;

export const AgentFinding = z
  .strictObject({
    summary: z.string().min(1),
    claims: z.array(AgentClaim).optional(),
    techniques: z.array(z.string().min(1)).optional().describe('MITRE ATT&CK technique ids, e.g. T1078'),
  })
  .meta({ title: 'AgentFinding' });
export type AgentFinding = z.infer<typeof AgentFinding>;

/**
 * JSON Schema for "the key is absent or null": `properties` applies only to keys that are present, so no
 * `not: { required }` is needed (that form fails Ajv strict mode's strictRequired rule).
 */
const absentOrNull = { type: 'null' } as const;

export const AgentProposal = z
  .strictObject({
    tool_calls: z.array(AgentToolCall).max(1, 'at most one tool call').nullable().optional(),
    finding: AgentFinding.nullable().optional(),
    rationale: z.string().min(1).max(2000),
    confidence: z.number().min(0).max(1).nullable().optional(),
    evidence_ids: z.array(z.string()).optional(),
  })
  .superRefine((p, ctx) => {
    const hasTools = Array.isArray(p.tool_calls) && p.tool_calls.length > 0;
    const hasFinding = p.finding !== null && p.finding !== undefined;
    if (hasTools === hasFinding) ctx.addIssue({ code: 'custom', message: 'exactly one of tool_calls or finding' });
  })
  .meta({
    title: 'AgentProposal',
    description: 'Exactly one of tool_calls (one element) or finding.',
    oneOf: [
      {
        required: ['tool_calls'],
        properties: { tool_calls: { type: 'array', minItems: 1 }, finding: absentOrNull },
      },
      {
        required: ['finding'],
        properties: {
          finding: { type: 'object' },
          tool_calls: { anyOf: [absentOrNull, { type: 'array', maxItems: 0 }] },
        },
      },
    ],
  });
export type AgentProposal = z.infer<typeof AgentProposal>;

export const AgentRefusal = z
  .strictObject({ code: RefusalCode, reason: z.string().min(1).max(2000) })
  .meta({ title: 'AgentRefusal' });
export type AgentRefusal = z.infer<typeof AgentRefusal>;

export const AgentUsage = z
  .strictObject({ input_tokens: z.number().int().min(0), output_tokens: z.number().int().min(0) })
  .meta({ title: 'AgentUsage' });
export type AgentUsage = z.infer<typeof AgentUsage>;

export const AgentResponse = z
  .strictObject({
    contract: z.literal(AGENT_CONTRACT_ID),
    proposal: AgentProposal.nullable().optional(),
    refusal: AgentRefusal.nullable().optional(),
    model: z.string().min(1).max(200).nullable().optional(),
    usage: AgentUsage.nullable().optional(),
  })
  .superRefine((r, ctx) => {
    const hasProposal = r.proposal !== null && r.proposal !== undefined;
    const hasRefusal = r.refusal !== null && r.refusal !== undefined;
    if (hasProposal === hasRefusal) ctx.addIssue({ code: 'custom', message: 'exactly one of proposal or refusal' });
  })
  .meta({
    $id: AGENT_V1_SCHEMA_IDS.response,
    title: 'soclab.agent.v1 response',
    description: 'The agent reply to one stage: exactly one of proposal or refusal.',
    oneOf: [
      { required: ['proposal'], properties: { proposal: { type: 'object' }, refusal: absentOrNull } },
      { required: ['refusal'], properties: { refusal: { type: 'object' }, proposal: absentOrNull } },
    ],
  });
export type AgentResponse = z.infer<typeof AgentResponse>;

// ---------------------------------------------------------------- validation helpers

export type AgentResponseCheck = { ok: true; value: AgentResponse } | { ok: false; summary: string };

/**
 * Validates a parsed reply body. Failures are summarised as "<n> validation error(s): <path>: <message>; …" with
 * at most five entries, naming locations and rules only, never the values the agent sent.
 */
export function checkAgentResponse(body: unknown): AgentResponseCheck {
  const result = AgentResponse.safeParse(body);
  if (result.success) return { ok: true, value: result.data };
  const issues = result.error.issues;
  const shown = issues.slice(0, 5).map((issue) => {
    const path = issuePath(issue);
    const message =
      issue.code === 'unrecognized_keys'
        ? `unknown field(s) ${issue.keys.map((k) => JSON.stringify(k.slice(0, 64))).join(', ')}`
        : issue.message;
    return `${path}: ${message}`;
  });
  const noun = issues.length === 1 ? 'error' : 'errors';
  return { ok: false, summary: `${issues.length} validation ${noun}: ${shown.join('; ')}` };
}

/** The two published JSON Schemas, generated from the models (request in input mode: defaults are optional). */
export function agentV1JsonSchemas(): { request: Record<string, unknown>; response: Record<string, unknown> } {
  return {
    request: z.toJSONSchema(AgentRequest, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>,
    response: z.toJSONSchema(AgentResponse, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>,
  };
}
