import { z } from 'zod';
import { checkTemplate } from '../http/template.js';
import { LimitOptionsShape } from '../rate-limit.js';
import { timeoutSeconds } from '../timeouts.js';

const Identifier = z.string().regex(/^[a-z][a-z0-9_]*$/, 'must match ^[a-z][a-z0-9_]*$');

/** Options of the `model` adapter (see docs/adapters.md). */
export const ModelOptions = z
  .strictObject({
    /** An @aeh/models provider id: mock, openai, azure_openai, anthropic, gemini, vertex, xai, ollama, openai_compatible. */
    provider: z.string().min(1),
    /** Model name (default: the provider's default model). */
    model: z.string().min(1).optional(),
    /** Provider settings as environment variables (e.g. OPENAI_COMPATIBLE_BASE_URL), over the process environment. */
    env: z.record(z.string(), z.string()).default({}),
    /** System prompt template. */
    system: z.string().optional(),
    /** User message template (default the case input). Ignored when `messages` is given. */
    prompt: z.string().default('{{input}}'),
    /** A whole conversation template instead of `prompt`. */
    messages: z
      .array(z.strictObject({ role: z.enum(['system', 'user', 'assistant']), content: z.string() }))
      .min(1)
      .optional(),
    /** Tools offered to the model (JSON Schema parameters); the model's proposal is recorded as a tool call. */
    tools: z
      .array(
        z.strictObject({
          name: Identifier,
          description: z.string().min(1),
          parameters: z.record(z.string(), z.unknown()),
        }),
      )
      .default([]),
    /** JSON Schema of a structured answer; the output is then the parsed object. */
    response_schema: z.record(z.string(), z.unknown()).optional(),
    /** Default: `structured` with a response_schema, `tool` with tools, else `text`. */
    mode: z.enum(['text', 'structured', 'tool']).optional(),
    /** Stream the answer (records time to first token; usage is then estimated). */
    stream: z.boolean().default(false),
    max_output_tokens: z.number().int().min(1).default(1024),
    temperature: z.number().min(0).max(2).default(0),
    /** Seconds per call. */
    timeout: timeoutSeconds().optional(),
    /**
     * Scripted replies for the `mock` provider: the first entry whose `match` is a substring of the last message
     * answers (no `match`: always). Replies use the MockProvider reply shape (text, structured, tool_call, usage...).
     */
    script: z
      .array(z.strictObject({ match: z.string().optional(), reply: z.record(z.string(), z.unknown()) }))
      .optional(),
    ...LimitOptionsShape,
  })
  .superRefine((o, ctx) => {
    checkTemplate(ctx, o.system, ['system']);
    checkTemplate(ctx, o.prompt, ['prompt']);
    for (const [i, m] of (o.messages ?? []).entries()) checkTemplate(ctx, m.content, ['messages', i, 'content']);
  });
export type ModelOptions = z.infer<typeof ModelOptions>;
export type ModelOptionsInput = z.input<typeof ModelOptions>;
