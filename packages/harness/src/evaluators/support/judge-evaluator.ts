import type { MessageInput, ModelRequestInput } from '@aeh/models';
import { z } from 'zod';
import { type AgentOutput, isError, outputText } from '../../core/agent.js';
import type { TestCase } from '../../core/testcase.js';
import { inputText } from '../../core/testcase.js';
import { defineEvaluator, type EvaluatorPlugin, errorResult, result } from '../base.js';
import {
  checkJudgeChoice,
  combine,
  fence,
  Judge,
  JudgeOptions,
  type JudgeVerdict,
  judgeSpecs,
  untrustedNotice,
} from './judge.js';

/** A piece of the judge prompt; untrusted pieces are fenced with a random boundary. */
export interface PromptSection {
  title: string;
  text: string;
  untrusted: boolean;
}

/** What a judge evaluator contributes: its prompt and how to read a verdict. */
export interface JudgeDefinition<O> {
  name: string;
  description: string;
  promptVersion: string;
  /** Model request stage id (lets scripted mocks answer per evaluator). */
  stage: string;
  options: z.ZodRawShape;
  refine?: (o: O, ctx: z.RefinementCtx) => void;
  /** Task description placed in the system prompt, and the JSON shape the judge must return. */
  system(opts: O): string;
  /** The sections of the user prompt, or a string explaining why the case cannot be judged. */
  sections(opts: O, testCase: TestCase, output: AgentOutput): PromptSection[] | string;
  /** Turn the judge's JSON into a score in [0, 1] and a verdict; throw on a malformed verdict. */
  interpret(opts: O, verdict: Record<string, unknown>, judge: string): Omit<JudgeVerdict, 'record' | 'judge'>;
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

/** Register an LLM-judge evaluator with judge/panel options, lazy provider resolution and bookkeeping. */
export function defineJudgeEvaluator<O extends Record<string, unknown>>(
  def: JudgeDefinition<O>,
): EvaluatorPlugin<unknown> {
  const schema = z.strictObject({ ...JudgeOptions, ...def.options }).superRefine((o, ctx) => {
    checkJudgeChoice(o as { provider?: string; panel?: unknown[]; script?: unknown }, ctx);
    def.refine?.(o as unknown as O, ctx);
  });
  type Full = z.infer<typeof schema>;
  return defineEvaluator<Full>({
    name: def.name,
    description: def.description,
    options: schema as unknown as z.ZodType<Full>,
    create(opts, ctx) {
      const o = opts as unknown as O & {
        aggregate: 'mean' | 'majority';
        temperature: number;
        max_output_tokens: number;
      };
      const judges = judgeSpecs(opts as Parameters<typeof judgeSpecs>[0]).map((s) => new Judge(s, ctx));
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
          const verdicts = await Promise.all(
            judges.map(async (j): Promise<JudgeVerdict> => {
              const { verdict, record } = await j.ask(request, def.promptVersion, evalCtx?.signal);
              return { judge: j.label, record, ...def.interpret(o, verdict, j.label) };
            }),
          );
          const combined = combine(verdicts, o.aggregate, def.promptVersion);
          return result({
            evaluator: def.name,
            score: combined.score,
            passed: combined.passed,
            explanation: combined.explanation,
            details: { judge: combined.judge },
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
