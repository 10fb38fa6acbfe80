import type { MessageInput, ModelRequestInput } from '@aeh/models';
import { z } from 'zod';
import { type AgentOutput, isError, outputText } from '../../core/agent.js';
import { errorMessage } from '../../core/errors.js';
import { sha256 } from '../../core/hash.js';
import { itemAt } from '../../core/item-at.js';
import type { TestCase } from '../../core/testcase.js';
import { inputText } from '../../core/testcase.js';
import { defineEvaluator, type EvaluatorPlugin, errorResult, result } from '../base.js';
import { echoedInstruction } from './injection.js';
import {
  checkJudgeChoice,
  combine,
  defaultQuorum,
  fence,
  Judge,
  JudgeCallError,
  type JudgeContext,
  type JudgeFailure,
  JudgeOptions,
  type JudgeVerdict,
  judgeSettings,
  judgeSpecs,
  untrustedNotice,
} from './judge.js';

/** A piece of the judge prompt; untrusted pieces are fenced with a boundary the text cannot forge. */
export interface PromptSection {
  title: string;
  text: string;
  untrusted: boolean;
}

/** A judge evaluator's own options, as its option shape parses them (the common judge options come on top). */
export type JudgeOwnOptions<S extends z.ZodRawShape> = z.output<z.ZodObject<S>>;

/**
 * What a judge evaluator contributes: its option shape, its prompt, its verdict schema, and how to read a verdict.
 * The callbacks' `opts` type is inferred from `options`, so an evaluator declares its options once.
 */
export interface JudgeDefinition<S extends z.ZodRawShape, O = JudgeOwnOptions<S>> {
  name: string;
  description: string;
  promptVersion: string;
  /** Model request stage id (lets scripted mocks answer per evaluator). */
  stage: string;
  options: S;
  /** A valid options set, as for every plugin (a judge needs at least a provider). */
  example: Readonly<Record<string, unknown>>;
  refine?: (o: O, ctx: z.RefinementCtx) => void;
  /** Task description placed in the system prompt, and the JSON shape the judge must return. */
  system(opts: O): string;
  /** The verdict's schema (enums, ranges); sent to the provider and the only shape accepted back. */
  verdict(opts: O): z.ZodType<Record<string, unknown>>;
  /** The sections of the user prompt, or a string explaining why the case cannot be judged. */
  sections(opts: O, testCase: TestCase, output: AgentOutput): PromptSection[] | string;
  /** Turn a schema-valid verdict into a score in [0, 1] and a pass/fail. */
  interpret(
    opts: O,
    verdict: Record<string, unknown>,
    judge: string,
  ): Omit<JudgeVerdict, 'record' | 'judge' | 'transcript'>;
}

/** Build the provider-neutral request: system rules, trusted instructions, fenced untrusted material. */
export function buildJudgeRequest(
  stage: string,
  system: string,
  sections: PromptSection[],
  maxOutputTokens: number,
  temperature: number,
): ModelRequestInput {
  const tags: string[] = [];
  const trusted: string[] = [];
  const untrusted: string[] = [];
  for (const s of sections) {
    if (s.untrusted) {
      const f = fence(s.title.toLowerCase().replace(/[^a-z]+/g, '-'), s.text);
      tags.push(f.tag);
      untrusted.push(`${s.title}:\n${f.block}`);
    } else trusted.push(`${s.title}:\n${s.text}`);
  }
  const messages: MessageInput[] = [];
  if (trusted.length) messages.push({ role: 'user', content: trusted.join('\n\n'), trust: 'trusted' });
  if (untrusted.length) messages.push({ role: 'user', content: untrusted.join('\n\n'), trust: 'untrusted' });
  messages.push({
    role: 'user',
    content: 'Now give your verdict as a single JSON object, with no text before or after it.',
    trust: 'trusted',
  });
  return {
    stage,
    system_prompt: `${system}\n\n${tags.length ? untrustedNotice(tags) : ''}`.trim(),
    messages,
    max_output_tokens: maxOutputTokens,
    temperature,
  };
}

type CommonJudgeOptions = {
  aggregate: 'mean' | 'majority';
  quorum?: number;
  temperature: number;
  max_output_tokens: number;
  timeout: number;
  max_attempts: number;
  max_concurrency: number;
  requests_per_minute?: number;
  cache?: boolean;
};

/** Register an LLM-judge evaluator with judge/panel options, lazy provider resolution and bookkeeping. */
export function defineJudgeEvaluator<S extends z.ZodRawShape>(def: JudgeDefinition<S>): EvaluatorPlugin<unknown> {
  type O = JudgeOwnOptions<S>;
  // The parsed options are the judge's own plus the common ones; TypeScript cannot see through the spread of a
  // generic shape, so this is the one place the two views of the same object meet.
  const schema = z.strictObject({ ...JudgeOptions, ...def.options }).superRefine((o, ctx) => {
    checkJudgeChoice(o as Parameters<typeof checkJudgeChoice>[0], ctx);
    def.refine?.(o as unknown as O, ctx);
  });
  type Full = z.infer<typeof schema>;
  return defineEvaluator<Full>({
    name: def.name,
    description: def.description,
    options: schema as unknown as z.ZodType<Full>,
    example: def.example,
    create(opts, ctx) {
      const o = opts as unknown as O & CommonJudgeOptions;
      const judges = judgeSpecs(opts as Parameters<typeof judgeSpecs>[0]).map(
        (s) => new Judge(s, ctx, judgeSettings(o, s, ctx as JudgeContext)),
      );
      const quorum = judges.length === 1 ? 1 : (o.quorum ?? defaultQuorum(judges.length));
      const verdictSchema = def.verdict(o);
      return {
        name: def.name,
        async prepare() {
          await Promise.all(judges.map((j) => j.provider()));
        },
        async evaluate(testCase, output, evalCtx) {
          if (isError(output)) return errorResult(def.name, output);
          const sections = def.sections(o, testCase, output);
          if (typeof sections === 'string') {
            return result({ evaluator: def.name, score: 0, passed: false, explanation: sections });
          }
          const request = buildJudgeRequest(def.stage, def.system(o), sections, o.max_output_tokens, o.temperature);
          const text = outputText(output);
          const verdicts: JudgeVerdict[] = [];
          const failures: JudgeFailure[] = [];
          // Every member is asked; one failing never discards the others' verdicts or spend.
          const settled = await Promise.allSettled(
            judges.map(async (j) => {
              const answer = await j.ask(request, def.promptVersion, verdictSchema, evalCtx?.signal);
              return { judge: j, answer, read: def.interpret(o, answer.verdict, j.label) };
            }),
          );
          settled.forEach((s, i) => {
            const judge = itemAt(judges, i);
            const label = judge.label;
            if (s.status === 'rejected') {
              const err = s.reason;
              if (err instanceof JudgeCallError) {
                failures.push({ judge: label, reason: err.message, record: err.record, transcript: err.transcript });
              } else {
                failures.push({
                  judge: label,
                  reason: `judge ${label} failed: ${errorMessage(err)}`,
                  record: {
                    provider: judge.spec.provider,
                    model: judge.spec.model ?? '',
                    prompt_version: def.promptVersion,
                    usage: { input_tokens: 0, output_tokens: 0, estimated: false },
                    cost: 0,
                    cost_is_estimated: false,
                    cost_known: true,
                    latency_ms: 0,
                    attempts: 0,
                    cached: false,
                  },
                });
              }
              return;
            }
            const { answer, read } = s.value;
            // A passing verdict that repeats an instruction planted in the output is the output grading itself.
            // A failing one resisted it (quoting the attempt is fine): the injection only ever asks for a pass.
            const echoed = read.passed ? echoedInstruction(read.reasoning, text) : null;
            if (echoed) {
              failures.push({
                judge: label,
                reason: `judge ${label} verdict discarded (possible prompt injection): ${echoed}`,
                record: answer.record,
                transcript: answer.transcript,
              });
              return;
            }
            verdicts.push({ judge: label, record: answer.record, transcript: answer.transcript, ...read });
          });
          const combined = combine(verdicts, failures, o.aggregate, def.promptVersion, quorum);
          const injection = failures.filter((f) => f.reason.includes('possible prompt injection'));
          return result({
            evaluator: def.name,
            score: combined.score,
            passed: combined.passed,
            error: combined.error,
            explanation: combined.explanation,
            details: {
              judge: {
                ...combined.judge,
                // Lets flaky_cases tell a changed output from a changed verdict on the same output.
                output_sha256: sha256(text),
                ...(injection.length
                  ? { injection_flagged: injection.map((f) => ({ judge: f.judge, reason: f.reason })) }
                  : {}),
              },
            },
          });
        },
      };
    },
  }) as unknown as EvaluatorPlugin<unknown>;
}

/** Case input and agent output as untrusted prompt sections. */
export function inputAndOutput(testCase: TestCase, output: AgentOutput, includeInput: boolean): PromptSection[] {
  const out: PromptSection[] = [];
  if (includeInput) out.push({ title: 'Task given to the agent', text: inputText(testCase), untrusted: true });
  out.push({ title: 'Agent response', text: outputText(output), untrusted: true });
  return out;
}
