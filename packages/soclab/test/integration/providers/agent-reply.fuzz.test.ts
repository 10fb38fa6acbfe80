/**
 * Property test of `soclab.agent.v1` replies on a real loopback agent: whatever the agent answers (JSON values,
 * near-valid replies, mangled text), the investigation ends with a clear verdict and never throws or hangs. A
 * reply that is not a JSON object is an `invalid_json` error turn, one the contract refuses a `schema_violation`
 * error turn naming the field; only a reply the contract accepts goes on to a real turn.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAgentResponse } from '../../../src/contracts/agent-v1.js';
import { BaselinePort } from '../../../src/modes/baseline-port.js';
import { runInvestigation } from '../../../src/orchestrator/investigation.js';
import { HttpAgentProvider } from '../../../src/providers/http.js';
import { createSimulator } from '../../../src/simulator/state.js';
import { fuzzParameters, fuzzTimeout } from '../../helpers/fuzz.js';

const SUITE_RUNS = 120;
const C = 'soclab.agent.v1';
const REFUSE = JSON.stringify({ contract: C, refusal: { code: 'done', reason: 'fuzz run over' } });
const tally = { tried: 0, handled: 0 };

let server: Server;
let url: string;
/** The first reply of the current run; later requests get a refusal so the run ends quickly. */
let firstReply = '';
let served = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      served += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(served === 1 ? firstReply : REFUSE);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/agent`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  console.info(`agent reply fuzz: ${tally.tried} replies, ${tally.handled} handled as the property requires`);
});

const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }));
const toolCall = fc.record(
  {
    name: fc.oneof(fc.constantFrom('get_identity_profile', 'search_siem', 'disable_account'), text),
    arguments: fc.oneof(fc.dictionary(text, fc.jsonValue(), { maxKeys: 3 }), fc.jsonValue()),
  },
  { requiredKeys: [] },
);
const proposal = fc.record(
  {
    tool_calls: fc.oneof(fc.array(toolCall, { maxLength: 2 }), fc.constant(null), fc.jsonValue()),
    rationale: fc.oneof(text, fc.jsonValue()),
    finding: fc.oneof(
      fc.record({ summary: text, techniques: fc.array(text, { maxLength: 2 }) }, { requiredKeys: [] }),
      fc.jsonValue(),
    ),
    confidence: fc.oneof(fc.double(), fc.jsonValue()),
    evidence_ids: fc.oneof(fc.array(text, { maxLength: 2 }), fc.jsonValue()),
  },
  { requiredKeys: [] },
);
const reply = fc.record(
  {
    contract: fc.oneof(fc.constant(C), text),
    proposal: fc.oneof(proposal, fc.constant(null)),
    refusal: fc.oneof(fc.record({ code: text, reason: text }, { requiredKeys: [] }), fc.jsonValue()),
    model: text,
    usage: fc.oneof(
      fc.record({ input_tokens: fc.integer(), output_tokens: fc.integer() }, { requiredKeys: [] }),
      fc.jsonValue(),
    ),
  },
  { requiredKeys: [] },
);
const replies = fc.oneof(
  reply.map((r) => JSON.stringify(r)),
  fc.tuple(reply, fc.dictionary(text, fc.jsonValue(), { maxKeys: 2 })).map(([r, x]) => JSON.stringify({ ...x, ...r })),
  fc.jsonValue().map((v) => JSON.stringify(v) ?? ''),
  fc.tuple(reply, fc.nat(), text).map(([r, at, junk]) => {
    const t = JSON.stringify(r);
    const i = at % (t.length + 1);
    return t.slice(0, i) + junk + t.slice(i);
  }),
  text,
);

function expected(raw: string): 'invalid_json' | 'schema_violation' | 'accepted' {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return 'invalid_json';
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return 'invalid_json';
  return checkAgentResponse(parsed).ok ? 'accepted' : 'schema_violation';
}

describe('soclab.agent.v1 reply properties', () => {
  it(
    'every reply ends in an error turn with the right code or an accepted turn; never a throw or a hang',
    async () => {
      await fc.assert(
        fc.asyncProperty(replies, async (raw) => {
          tally.tried += 1;
          firstReply = raw;
          served = 0;
          const provider = new HttpAgentProvider({ url, token: 'fuzz-token-0123456789', timeoutSeconds: 10 });
          try {
            const simulator = createSimulator({ enforceScope: false });
            const result = await runInvestigation({
              incidentId: 'INC-1001',
              alert: simulator.incident as Record<string, unknown>,
              provider,
              port: new BaselinePort(simulator),
              maxSteps: 3,
            });
            const first = result.events[0];
            expect(first, raw).toBeDefined();
            const verdict = expected(raw);
            if (verdict === 'accepted') {
              expect(
                first!.finish_reason === 'error' ? JSON.parse(first!.output_text).refusal.code : 'ok',
                raw,
              ).not.toMatch(/invalid_json|schema_violation/);
            } else {
              expect(first!.finish_reason, raw).toBe('error');
              expect(JSON.parse(first!.output_text).refusal.code, raw).toBe(verdict);
              expect(result.status, raw).toBe('failed');
              expect(first!.proposed_tool, raw).toBeNull();
            }
          } finally {
            await provider.close();
          }
          tally.handled += 1;
        }),
        fuzzParameters(SUITE_RUNS),
      );
    },
    fuzzTimeout(SUITE_RUNS, 300),
  );
});
