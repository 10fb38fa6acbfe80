/**
 * Regenerates the published soclab.agent.v1 JSON Schemas from the zod models:
 *   npx tsx packages/soclab/scripts/generate-agent-v1-schemas.ts
 * A test (test/unit/contracts/agent-v1-schema-drift.test.ts) fails when the committed files differ.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { agentV1JsonSchemas } from '../src/contracts/agent-v1.js';

export const AGENT_V1_SCHEMA_DIR = fileURLToPath(new URL('../schemas/agent-v1/', import.meta.url));

/** The exact text of each published file (2-space JSON plus a final newline). */
export function renderAgentV1Schemas(): { 'request.schema.json': string; 'response.schema.json': string } {
  const { request, response } = agentV1JsonSchemas();
  return {
    'request.schema.json': `${JSON.stringify(request, null, 2)}\n`,
    'response.schema.json': `${JSON.stringify(response, null, 2)}\n`,
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const [name, text] of Object.entries(renderAgentV1Schemas())) {
    writeFileSync(`${AGENT_V1_SCHEMA_DIR}${name}`, text);
    console.log(`wrote ${AGENT_V1_SCHEMA_DIR}${name}`);
  }
}
