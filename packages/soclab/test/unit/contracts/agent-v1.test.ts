import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { AGENT_V1_SCHEMA_DIR, renderAgentV1Schemas } from '../../../scripts/generate-agent-v1-schemas.js';
import { AgentRequest, AgentResponse, checkAgentResponse } from '../../../src/contracts/agent-v1.js';

const published = (name: string) => JSON.parse(readFileSync(`${AGENT_V1_SCHEMA_DIR}${name}`, 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: true });
const ajvResponse = ajv.compile(published('response.schema.json'));
const ajvRequest = ajv.compile(published('request.schema.json'));

const C = 'soclab.agent.v1';
const toolCall = { name: 'get_identity_profile', arguments: { user_id: 'u-alex-rivera' } };
const finding = {
  summary: 'Credential compromise of u-alex-rivera',
  claims: [{ text: 'Three failed sign-ins from 198.51.100.77', evidence_ids: ['get_authentication_history:2'] }],
  techniques: ['T1110.001'],
};
const proposal = (extra: Record<string, unknown> = {}) => ({
  tool_calls: [toolCall],
  rationale: 'profile first',
  ...extra,
});

/** [label, reply, valid?] */
const TABLE: Array<[string, unknown, boolean]> = [
  ['tool call', { contract: C, proposal: proposal() }, true],
  ['finding', { contract: C, proposal: { finding, rationale: 'r', confidence: 0.8, evidence_ids: ['alert'] } }, true],
  [
    'finding with an empty tool_calls list',
    { contract: C, proposal: { tool_calls: [], finding, rationale: 'r' } },
    true,
  ],
  ['finding with null tool_calls', { contract: C, proposal: { tool_calls: null, finding, rationale: 'r' } }, true],
  ['minimal finding', { contract: C, proposal: { finding: { summary: 's' }, rationale: 'r' } }, true],
  ['refusal', { contract: C, refusal: { code: 'insufficient_evidence', reason: 'no alert' } }, true],
  ['refusal with null proposal', { contract: C, proposal: null, refusal: { code: 'policy', reason: 'no' } }, true],
  [
    'model and usage',
    { contract: C, proposal: proposal(), model: 'agent', usage: { input_tokens: 5, output_tokens: 0 } },
    true,
  ],
  [
    'null model, usage, confidence',
    { contract: C, proposal: proposal({ confidence: null }), model: null, usage: null },
    true,
  ],
  ['confidence bounds', { contract: C, proposal: proposal({ confidence: 1 }) }, true],
  ['rationale of 2000 chars', { contract: C, proposal: proposal({ rationale: 'x'.repeat(2000) }) }, true],
  ['both proposal and refusal', { contract: C, proposal: proposal(), refusal: { code: 'error', reason: 'x' } }, false],
  ['neither proposal nor refusal', { contract: C }, false],
  ['both null', { contract: C, proposal: null, refusal: null }, false],
  ['proposal with neither tool_calls nor finding', { contract: C, proposal: { rationale: 'r' } }, false],
  ['proposal with both', { contract: C, proposal: { tool_calls: [toolCall], finding, rationale: 'r' } }, false],
  ['empty tool_calls and no finding', { contract: C, proposal: { tool_calls: [], rationale: 'r' } }, false],
  ['two tool calls', { contract: C, proposal: { tool_calls: [toolCall, toolCall], rationale: 'r' } }, false],
  ['wrong contract id', { contract: 'soclab.agent.v2', proposal: proposal() }, false],
  ['missing contract', { proposal: proposal() }, false],
  [
    'tool name Disable-Account',
    { contract: C, proposal: { tool_calls: [{ name: 'Disable-Account', arguments: {} }], rationale: 'r' } },
    false,
  ],
  ['unknown refusal code', { contract: C, refusal: { code: 'busy', reason: 'x' } }, false],
  ['empty refusal reason', { contract: C, refusal: { code: 'error', reason: '' } }, false],
  ['missing rationale', { contract: C, proposal: { tool_calls: [toolCall] } }, false],
  ['empty rationale', { contract: C, proposal: proposal({ rationale: '' }) }, false],
  ['rationale over 2000 chars', { contract: C, proposal: proposal({ rationale: 'x'.repeat(2001) }) }, false],
  ['confidence above 1', { contract: C, proposal: proposal({ confidence: 1.01 }) }, false],
  ['confidence below 0', { contract: C, proposal: proposal({ confidence: -0.1 }) }, false],
  ['confidence as a string', { contract: C, proposal: proposal({ confidence: '0.9' }) }, false],
  ['extra top-level field', { contract: C, proposal: proposal(), debug: true }, false],
  ['extra proposal field', { contract: C, proposal: proposal({ action: 'x' }) }, false],
  [
    'extra tool-call field',
    { contract: C, proposal: { tool_calls: [{ ...toolCall, id: 'c1' }], rationale: 'r' } },
    false,
  ],
  [
    'extra finding field',
    { contract: C, proposal: { finding: { ...finding, severity: 'high' }, rationale: 'r' } },
    false,
  ],
  [
    'extra claim field',
    { contract: C, proposal: { finding: { summary: 's', claims: [{ text: 't', weight: 1 }] }, rationale: 'r' } },
    false,
  ],
  ['extra refusal field', { contract: C, refusal: { code: 'error', reason: 'x', retry: true } }, false],
  [
    'extra usage field',
    { contract: C, proposal: proposal(), usage: { input_tokens: 1, output_tokens: 1, cost: 2 } },
    false,
  ],
  ['negative usage', { contract: C, proposal: proposal(), usage: { input_tokens: -1, output_tokens: 0 } }, false],
  ['fractional usage', { contract: C, proposal: proposal(), usage: { input_tokens: 1.5, output_tokens: 0 } }, false],
  [
    'arguments as a string',
    { contract: C, proposal: { tool_calls: [{ name: 'x', arguments: '{}' }], rationale: 'r' } },
    false,
  ],
  ['tool_calls as an object', { contract: C, proposal: { tool_calls: toolCall, rationale: 'r' } }, false],
  ['empty model label', { contract: C, proposal: proposal(), model: '' }, false],
  ['model label over 200 chars', { contract: C, proposal: proposal(), model: 'm'.repeat(201) }, false],
  ['finding without summary', { contract: C, proposal: { finding: { claims: [] }, rationale: 'r' } }, false],
  ['an array', [{ contract: C, proposal: proposal() }], false],
  ['a string', 'ok', false],
  ['null', null, false],
  ['a number', 42, false],
];

describe('soclab.agent.v1 published schemas', () => {
  it('match the zod models exactly (regenerate with scripts/generate-agent-v1-schemas.ts)', () => {
    for (const [name, text] of Object.entries(renderAgentV1Schemas())) {
      expect(readFileSync(`${AGENT_V1_SCHEMA_DIR}${name}`, 'utf8'), `${name} drifted from the zod models`).toBe(text);
    }
  });

  it('are draft 2020-12 with closed objects', () => {
    const response = published('response.schema.json');
    expect(response.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(response.additionalProperties).toBe(false);
    expect(published('request.schema.json').additionalProperties).toBe(false);
  });
});

describe('zod and ajv agree on replies', () => {
  it.each(TABLE)('%s', (_label, reply, valid) => {
    expect(AgentResponse.safeParse(reply).success, 'zod').toBe(valid);
    expect(ajvResponse(reply), `ajv: ${ajv.errorsText(ajvResponse.errors)}`).toBe(valid);
  });
});

describe('validation messages the adapter reports', () => {
  const summary = (reply: unknown) => {
    const r = checkAgentResponse(reply);
    if (r.ok) throw new Error('expected a failure');
    return r.summary;
  };
  it('names the rule without echoing values', () => {
    expect(summary({ contract: C })).toBe('1 validation error: (root): exactly one of proposal or refusal');
    expect(summary({ contract: C, proposal: { rationale: 'r' } })).toContain(
      'proposal: exactly one of tool_calls or finding',
    );
    expect(summary({ contract: C, proposal: { tool_calls: [toolCall, toolCall], rationale: 'r' } })).toContain(
      'proposal.tool_calls: at most one tool call',
    );
    expect(
      summary({ contract: C, proposal: { tool_calls: [{ name: 'Disable-Account', arguments: {} }], rationale: 'r' } }),
    ).toContain('proposal.tool_calls.0.name');
    const secretValue = summary({ contract: C, refusal: { code: 'SECRET-VALUE-123', reason: 'x' } });
    expect(secretValue).toContain('refusal.code');
    expect(secretValue).not.toContain('SECRET-VALUE-123');
    expect(summary({ contract: C, proposal: proposal(), debug: 1 })).toContain('unknown field(s) "debug"');
  });
  it('lists at most five errors', () => {
    const s = summary({
      contract: 'x',
      proposal: { tool_calls: 1, finding: 2, rationale: 3, confidence: 'a', x: 1 },
      y: 2,
    });
    expect(s).toMatch(/^\d+ validation errors: /);
    expect(s.split('; ').length).toBeLessThanOrEqual(5);
  });
});

describe('requests', () => {
  const request = {
    run_id: 'run-1',
    trace_id: 'trace-1',
    incident_id: 'INC-1001',
    stage: 'collect_identity',
    instruction: 'Choose exactly one read-only tool.',
    context: { alert: { incident_id: 'INC-1001' }, evidence_ids: ['alert'] },
  };
  it('defaults optional fields and passes both validators', () => {
    const parsed = AgentRequest.parse(request);
    expect(parsed).toMatchObject({ contract: C, tools: [], turns: [], max_output_tokens: 1024, temperature: 0 });
    expect(ajvRequest(request)).toBe(true);
    expect(ajvRequest(parsed)).toBe(true);
  });
  it('rejects unknown stages and fields in both validators', () => {
    for (const bad of [
      { ...request, stage: 'complete' },
      { ...request, extra: 1 },
      { ...request, instruction: '' },
    ]) {
      expect(AgentRequest.safeParse(bad).success).toBe(false);
      expect(ajvRequest(bad)).toBe(false);
    }
  });
});
