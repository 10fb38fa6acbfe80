import { defineAdapter } from './base.js';
import { ModelOptions } from './model/options.js';
import { withRateLimit } from './rate-limit.js';

/**
 * `model`: a bare LLM as the agent, through an @aeh/models provider. The prompt is templated from the case;
 * tools and a response schema are optional; usage and cost are recorded for every call.
 *
 * @example
 *   agent:
 *     adapter: model
 *     options:
 *       provider: openai_compatible
 *       model: llama3
 *       env: { OPENAI_COMPATIBLE_BASE_URL: http://127.0.0.1:11434/v1 }
 *       system: You are a terse assistant.
 *       prompt: "Question: {{input}}"
 */
export const modelAdapter = defineAdapter({
  name: 'model',
  description: 'A bare LLM through an @aeh/models provider (prompt template, tools, structured output, usage, cost)',
  options: ModelOptions,
  async create(options, ctx) {
    // The provider SDKs are loaded only when a model agent is built.
    const { createModelAgent } = await import('./model/agent.js');
    return withRateLimit(await createModelAgent(options, ctx), options);
  },
});
