import { errorMessage } from '@aeh/harness/errors';
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import { z } from 'zod';
import { formatZodIssues, IDENTIFIER_PATTERN } from '../../contracts/common.js';
import { Obligation } from '../../contracts/decisions.js';
import type { DecisionOutcome } from '../../contracts/enums.js';
import { precompiledDirFor } from '../../precompile/artifacts.js';
import { type CountedLimit, countersComparedOnlyWithMaxima, replaceComparedCounters } from './compared-limits.js';
import {
  type EngineDecision,
  type PolicyEngine,
  PolicyLoadError,
  PolicyUnavailableError,
  riskTierOf,
} from './engine.js';
import { toCedarRequest } from './facts.js';
import { fastPolicyInput, isGatewayPolicyInput } from './fast-input.js';
import { type PolicyFolder, positionOf, readPolicyFolder, resolvePolicyDir, type SourceFile } from './folder.js';
import { PolicyInput, type PolicyInputData } from './input.js';
import { type CompiledPolicyFolder, precompiledPolicyFolder } from './precompiled.js';

/** What one policy contributes when it decides, read once from its annotations at load time. */
export interface PolicyMeta {
  id: string;
  effect: 'permit' | 'forbid';
  decision: Exclude<DecisionOutcome, 'deny'> | 'deny';
  reason: string;
  obligations: Obligation[];
  /** `file:line:col` of the policy. */
  source: string;
}

/** Reason code of a deny that no rule explained (nothing permitted the request). */
export const DEFAULT_DENY = 'default_deny';

const SEVERITY: Record<DecisionOutcome, number> = {
  allow: 0,
  allow_with_obligations: 1,
  require_approval: 2,
  deny: 3,
};

const PermitDecision = z.enum(['allow', 'allow_with_obligations', 'require_approval']);
const ObligationList = z.array(Obligation).min(1);

/** The authorizer call, injectable so tests can make the engine throw or answer nonsense. */
export type CedarAuthorizer = (call: cedar.StatefulAuthorizationCall) => cedar.AuthorizationAnswer;

export interface CedarEngineOptions {
  /** Policy folder; default `SOCLAB_POLICY_DIR` or the bundled `data/policies`. */
  dir?: string;
  authorizer?: CedarAuthorizer;
  /**
   * Validate every request against the schema as well (slower, with a long tail). Off by default: the gateway's
   * context builder is proven against the schema when the folder loads, the input document is validated on every
   * decision, and a type error during evaluation still fails closed.
   */
  validateRequests?: boolean;
  /**
   * Folder of precompiled artifacts (src/precompile/artifacts.ts): default the build's, none with
   * `SOCLAB_NO_PRECOMPILED`; null for none. An artifact is used only for a folder whose digest it names.
   */
  precompiledDir?: string | null;
}

let preparseCounter = 0;
const engineCache = new Map<string, CedarPolicyEngine>();
/**
 * Answers kept per engine. Scenario runs ask the same questions again and again (a 10-repeat campaign: ~2,000
 * decisions, ~500 distinct); the whole map is dropped when full, which keeps it simple and bounded.
 */
const ANSWER_MEMO_LIMIT = 4096;

/**
 * The lab's policy decision point: Cedar policies and schema from a folder, validated strictly at load, schema and
 * policy set preparsed once, and a three-way outcome read from the deciding policies' annotations.
 *
 * Every way of not getting a clean answer (invalid input document, a context the schema rejects, a policy that
 * errors during evaluation, a thrown exception, an answer that the annotations cannot explain) raises
 * `PolicyUnavailableError`; nothing is ever guessed.
 *
 * @example
 *   const engine = CedarPolicyEngine.load();
 *   const decision = await engine.decide({ proposal, context });
 */
export class CedarPolicyEngine implements PolicyEngine {
  readonly version: string;
  readonly digest: string;
  readonly dir: string;
  readonly policies: ReadonlyMap<string, PolicyMeta>;
  /** Where the compiled folder came from: its precompiled artifact, or parsing and validating the files. */
  readonly compiledFrom: 'artifact' | 'files';
  private readonly schemaName: string;
  private readonly policySetId: string;
  private readonly authorize: CedarAuthorizer;
  private readonly validateRequests: boolean;
  /** Run counters the policies only compare with their maxima (`compared-limits.ts`). */
  private readonly comparedCounters: readonly CountedLimit[];
  /**
   * Cedar's answer by request (principal, action, resource, context, entities as JSON). A decision is a pure function
   * of the preparsed policy set and the request (no clock, no I/O), and this map belongs to one preparsed set, so a
   * repeated request gets the answer Cedar gave the first time. Only for Cedar itself: an injected authorizer may
   * answer differently each call. The answer is only read by `interpret`, which builds a fresh decision each time.
   */
  private readonly answers: Map<string, cedar.AuthorizationAnswer> | undefined;

  private constructor(
    folder: PolicyFolder,
    { schema, metas, texts, comparedCounters }: CompiledPolicyFolder,
    compiledFrom: CedarPolicyEngine['compiledFrom'],
    authorizer: CedarAuthorizer,
    validateRequests: boolean,
  ) {
    this.version = folder.version;
    this.digest = folder.digest;
    this.dir = folder.dir;
    this.policies = metas;
    this.compiledFrom = compiledFrom;
    preparseCounter += 1;
    this.schemaName = `soclab-schema-${folder.digest.slice(0, 16)}-${preparseCounter}`;
    this.policySetId = `soclab-policies-${folder.digest.slice(0, 16)}-${preparseCounter}`;
    // Only request validation reads the preparsed schema; decisions need not (the load proved that the gateway's
    // requests conform), and preparsing it is ~25 ms of a fresh process's first Cedar calls.
    if (validateRequests) {
      const schemaAnswer = cedar.preparseSchema(this.schemaName, schema);
      if (schemaAnswer.type !== 'success')
        throw new PolicyLoadError(`${folder.schema.path}: schema could not be preparsed`);
    }
    const setAnswer = cedar.preparsePolicySet(this.policySetId, { staticPolicies: texts });
    if (setAnswer.type !== 'success') throw new PolicyLoadError(`${folder.dir}: policy set could not be preparsed`);
    this.authorize = authorizer;
    this.validateRequests = validateRequests;
    this.comparedCounters = comparedCounters;
    this.answers = authorizer === cedar.statefulIsAuthorized ? new Map() : undefined;
  }

  /** Load, validate and preparse a policy folder. Throws `PolicyLoadError` naming file:line:col on any problem. */
  static load(options: CedarEngineOptions = {}): CedarPolicyEngine {
    const folder = readPolicyFolder(resolvePolicyDir(options.dir));
    // Validation and preparsing cost tens of milliseconds; an unchanged folder (same digest) reuses its engine.
    const validate = options.validateRequests === true;
    const precompiledDir = precompiledDirFor(options.precompiledDir);
    const cacheKey = `${folder.dir}\u0000${folder.digest}\u0000${validate}\u0000${precompiledDir}`;
    if (!options.authorizer) {
      const cached = engineCache.get(cacheKey);
      if (cached) return cached;
    }
    const authorizer = options.authorizer ?? cedar.statefulIsAuthorized;
    const engine =
      CedarPolicyEngine.fromArtifact(folder, precompiledDir, authorizer, validate) ??
      new CedarPolicyEngine(folder, compileAndProve(folder), 'files', authorizer, validate);
    if (!options.authorizer) engineCache.set(cacheKey, engine);
    return engine;
  }

  /**
   * The engine from the folder's precompiled artifact: the same schema, policies and annotations the full load
   * would produce (validated by it at build time), with only Cedar's per-process preparsing left to do. Undefined
   * when there is no usable artifact for exactly this folder, or Cedar does not accept it; the full load follows.
   */
  private static fromArtifact(
    folder: PolicyFolder,
    precompiledDir: string | null,
    authorizer: CedarAuthorizer,
    validate: boolean,
  ): CedarPolicyEngine | undefined {
    if (precompiledDir === null) return undefined;
    const found = precompiledPolicyFolder(folder, precompiledDir);
    if ('rejected' in found) return undefined;
    try {
      return new CedarPolicyEngine(folder, found.compiled, 'artifact', authorizer, validate);
    } catch {
      return undefined;
    }
  }

  async decide(input: PolicyInputData): Promise<EngineDecision> {
    return this.decideSync(input);
  }

  /** Synchronous decision (the Cedar call itself is synchronous). Throws `PolicyUnavailableError`. */
  decideSync(input: PolicyInputData): EngineDecision {
    // The gateway's own documents are checked on the fast path (same result as zod, or zod decides); any other
    // document comes from outside and is always parsed by zod.
    const fast = isGatewayPolicyInput(input) ? fastPolicyInput(input) : undefined;
    const parsed = fast !== undefined ? ({ success: true, data: fast } as const) : PolicyInput.safeParse(input);
    if (!parsed.success) throw new PolicyUnavailableError(`invalid policy input: ${formatZodIssues(parsed.error)}`);
    let answer: cedar.AuthorizationAnswer;
    try {
      const request = replaceComparedCounters(toCedarRequest(parsed.data), this.comparedCounters);
      const key = this.answers
        ? JSON.stringify([request.principal, request.action, request.resource, request.context, request.entities])
        : '';
      const known = this.answers?.get(key);
      if (known) answer = known;
      else {
        answer = this.authorize({
          principal: request.principal,
          action: request.action,
          resource: request.resource,
          context: request.context,
          entities: request.entities,
          preparsedPolicySetId: this.policySetId,
          ...(this.validateRequests ? { preparsedSchemaName: this.schemaName, validateRequest: true } : {}),
        });
        if (this.answers) {
          if (this.answers.size >= ANSWER_MEMO_LIMIT) this.answers.clear();
          this.answers.set(key, answer);
        }
      }
    } catch (error) {
      throw new PolicyUnavailableError(`policy engine error: ${errorMessage(error)}`, {
        cause: error,
      });
    }
    return this.interpret(answer, riskTierOf(parsed.data));
  }

  private interpret(answer: cedar.AuthorizationAnswer, riskTier: EngineDecision['risk_tier']): EngineDecision {
    if (answer === null || typeof answer !== 'object')
      throw new PolicyUnavailableError('policy engine returned no answer');
    if (answer.type !== 'success') {
      const errors = answer.type === 'failure' && Array.isArray(answer.errors) ? answer.errors : [];
      throw new PolicyUnavailableError(
        `policy request rejected: ${errors.map((e) => e.message).join('; ') || 'unexpected answer'}`.slice(0, 1000),
      );
    }
    const response = answer.response;
    const diagnostics = response?.diagnostics;
    if (!diagnostics || !Array.isArray(diagnostics.reason) || !Array.isArray(diagnostics.errors)) {
      throw new PolicyUnavailableError('policy engine answer has no diagnostics');
    }
    // A policy that errors is skipped by Cedar; a skipped deny rule could let a request through, so fail closed.
    if (diagnostics.errors.length > 0) {
      const first = diagnostics.errors[0];
      throw new PolicyUnavailableError(`policy ${first?.policyId} failed during evaluation: ${first?.error.message}`);
    }
    const deciding: PolicyMeta[] = [];
    for (const id of diagnostics.reason) {
      const meta = this.policies.get(id);
      if (!meta) throw new PolicyUnavailableError(`policy engine named an unknown policy ${id}`);
      deciding.push(meta);
    }
    const base = {
      risk_tier: riskTier,
      policy_version: this.version,
      determining_policies: deciding.map((m) => m.id).sort(),
    };
    if (response.decision === 'deny') {
      if (deciding.some((m) => m.effect !== 'forbid')) {
        throw new PolicyUnavailableError('policy engine denied on a permit policy');
      }
      const codes = uniqueSorted(deciding.map((m) => m.reason));
      return { ...base, outcome: 'deny', reason_codes: codes.length > 0 ? codes : [DEFAULT_DENY], obligations: [] };
    }
    if (response.decision !== 'allow')
      throw new PolicyUnavailableError(`unexpected policy decision ${String(response.decision)}`);
    if (deciding.length === 0 || deciding.some((m) => m.effect !== 'permit')) {
      throw new PolicyUnavailableError('policy engine allowed without a deciding permit policy');
    }
    // Several permits may apply; the most restrictive outcome wins and only its policies explain the decision.
    const outcome = deciding.reduce<DecisionOutcome>(
      (worst, m) => (SEVERITY[m.decision] > SEVERITY[worst] ? m.decision : worst),
      'allow',
    );
    const chosen = deciding.filter((m) => m.decision === outcome);
    const obligations: Obligation[] = [];
    if (outcome === 'allow_with_obligations') {
      const seen = new Set<string>();
      for (const m of chosen) {
        for (const o of m.obligations) {
          if (!seen.has(o.name)) {
            seen.add(o.name);
            obligations.push(o);
          }
        }
      }
      if (obligations.length === 0) throw new PolicyUnavailableError('allow_with_obligations without obligations');
    }
    return { ...base, outcome, reason_codes: uniqueSorted(chosen.map((m) => m.reason)), obligations };
  }
}

function uniqueSorted(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}

function detailed(file: SourceFile, errors: readonly cedar.DetailedError[], offsetBase = 0): string[] {
  return errors.map((e) => `${positionOf(file, (e.sourceLocations?.[0]?.start ?? 0) + offsetBase)}: ${e.message}`);
}

/** The full load: compile the folder and prove the gateway's requests conform to its schema. */
export function compileAndProve(folder: PolicyFolder): CompiledPolicyFolder {
  const compiled = compilePolicyFolder(folder);
  proveContextConformance(folder, compiled.schema);
  return compiled;
}

/**
 * Parse the schema, parse and strictly validate each policy file against it, and read every policy's annotations.
 * All problems are collected and reported together, each with file:line:col.
 */
export function compilePolicyFolder(folder: PolicyFolder): CompiledPolicyFolder {
  const problems: string[] = [];
  const schema = schemaAsJson(folder.schema.text);
  const schemaParse = cedar.checkParseSchema(schema);
  if (schemaParse.type !== 'success') {
    // The text form's errors carry positions in the file; the JSON form's would not.
    const textParse = schema === folder.schema.text ? schemaParse : cedar.checkParseSchema(folder.schema.text);
    const errors = textParse.type === 'success' ? schemaParse.errors : textParse.errors;
    throw new PolicyLoadError(`policy schema is invalid`, detailed(folder.schema, errors));
  }
  const metas = new Map<string, PolicyMeta>();
  const texts: Record<string, string> = {};
  const forms: unknown[] = [];
  for (const file of folder.policies) {
    const parts = cedar.policySetTextToParts(file.text);
    if (parts.type !== 'success') {
      problems.push(...detailed(file, parts.errors));
      continue;
    }
    if (parts.policy_templates.length > 0) {
      problems.push(`${positionOf(file, 0)}: policy templates are not supported`);
      continue;
    }
    if (parts.policies.length === 0) {
      problems.push(`${positionOf(file, 0)}: no policies in file`);
      continue;
    }
    const validation = cedar.validate({
      schema,
      policies: { staticPolicies: file.text },
      validationSettings: { mode: 'strict' },
    });
    if (validation.type !== 'success') {
      problems.push(...detailed(file, validation.errors));
      continue;
    }
    for (const v of validation.validationErrors) problems.push(...detailed(file, [v.error]));
    const starts = policyOffsets(file.text, parts.policies);
    parts.policies.forEach((text, index) => {
      const source = positionOf(file, starts[index]);
      const json = cedar.policyToJson(text);
      if (json.type !== 'success') {
        problems.push(`${source}: ${json.errors.map((e) => e.message).join('; ')}`);
        return;
      }
      forms.push(json.json);
      const result = readAnnotations(json.json.effect, json.json.annotations ?? {}, source);
      if (typeof result === 'string') {
        problems.push(result);
        return;
      }
      const existing = metas.get(result.id);
      if (existing) {
        problems.push(`${source}: duplicate @id("${result.id}") (first at ${existing.source})`);
        return;
      }
      metas.set(result.id, result);
      texts[result.id] = text;
    });
  }
  if (problems.length > 0) {
    throw new PolicyLoadError(`policy folder ${folder.dir} is invalid:\n  ${problems.join('\n  ')}`, problems);
  }
  return { metas, texts, schema, comparedCounters: countersComparedOnlyWithMaxima(forms) };
}

/**
 * Every Cedar call that takes a schema parses it again; the JSON form parses about three times faster than the
 * text form in the WebAssembly build, and a folder load makes eight such calls. Text that does not convert is
 * returned unchanged so its errors are reported against the file.
 */
function schemaAsJson(text: string): cedar.Schema {
  const converted = cedar.schemaToJson(text);
  return converted.type === 'success' ? converted.json : text;
}

/** Inputs covering every shape the context builder produces (all optional attributes present, and none). */
function probeInputs(): PolicyInput[] {
  const context = {
    incident_id: 'INC-0',
    authority_level: 'L4' as const,
    approved_models: [['p', 'm'] as const],
    tools: { t: { risk_tier: 'high' as const, allowed_arguments: ['user_id'] } },
    limits: {
      calls_made: 1,
      max_calls: 2,
      cost_used_usd: 0,
      max_cost_usd: 1,
      elapsed_seconds: 0,
      max_elapsed_seconds: 1,
    },
    approval: { present: false, valid: false },
    degraded: false,
  };
  const proposal = {
    agent_id: 'a',
    delegated_user_id: 'd',
    incident_id: 'INC-0',
    tool_name: 't',
    evidence_count: 1,
    provider: 'p',
    model: 'm',
  };
  return [
    {
      proposal: { ...proposal, arguments: { user_id: 'u', endpoint_id: 'e', indicator: '10.0.0.0/8', n: 1 } },
      context: { ...context, protected_assets: { user_ids: ['u'], endpoint_ids: ['e'], indicators: ['i'] } },
    },
    { proposal: { ...proposal, arguments: {} }, context: { ...context, protected_assets: {} } },
  ];
}

/**
 * Prove that the schema describes exactly the requests the gateway builds, so decisions need not re-validate each
 * request. A schema that does not (a user folder expecting other attributes) fails the load with the reason.
 */
function proveContextConformance(folder: PolicyFolder, schema: cedar.Schema): void {
  for (const input of probeInputs()) {
    const request = toCedarRequest(input);
    const context = cedar.checkParseContext({
      context: request.context,
      schema,
      action: request.action,
    });
    const entities = cedar.checkParseEntities({ entities: request.entities, schema });
    for (const answer of [context, entities]) {
      if (answer.type !== 'success') {
        throw new PolicyLoadError(
          `${folder.schema.path}: the schema does not describe the request the gateway builds: ${answer.errors.map((e) => e.message).join('; ')}`,
        );
      }
    }
  }
}

/** Byte offsets of each policy's text within its file (the parts are verbatim slices, in no guaranteed order). */
function policyOffsets(fileText: string, parts: readonly string[]): (number | undefined)[] {
  const bytes = Buffer.from(fileText, 'utf8');
  const used = new Set<number>();
  return parts.map((part) => {
    const needle = Buffer.from(part, 'utf8');
    let at = bytes.indexOf(needle);
    while (at >= 0 && used.has(at)) at = bytes.indexOf(needle, at + 1);
    if (at < 0) return undefined;
    used.add(at);
    return at;
  });
}

function readAnnotations(effect: string, annotations: Record<string, string>, source: string): PolicyMeta | string {
  const id = annotations.id;
  if (!id || !IDENTIFIER_PATTERN.test(id)) return `${source}: every policy needs @id("<identifier>")`;
  const reason = annotations.reason;
  if (!reason || !IDENTIFIER_PATTERN.test(reason)) {
    return `${source}: policy ${id} needs @reason("<reason_code>") with a lowercase identifier`;
  }
  if (effect === 'forbid') {
    if (annotations.decision !== undefined && annotations.decision !== 'deny') {
      return `${source}: forbid policy ${id} can only have @decision("deny")`;
    }
    if (annotations.obligations !== undefined) return `${source}: forbid policy ${id} cannot carry @obligations`;
    return { id, effect: 'forbid', decision: 'deny', reason, obligations: [], source };
  }
  if (effect !== 'permit') return `${source}: policy ${id} has an unknown effect ${effect}`;
  const decision = PermitDecision.safeParse(annotations.decision);
  if (!decision.success) {
    return `${source}: permit policy ${id} needs @decision("allow" | "allow_with_obligations" | "require_approval")`;
  }
  let obligations: Obligation[] = [];
  if (decision.data === 'allow_with_obligations') {
    if (annotations.obligations === undefined)
      return `${source}: policy ${id} is allow_with_obligations but has no @obligations`;
    let raw: unknown;
    try {
      raw = JSON.parse(annotations.obligations);
    } catch (error) {
      return `${source}: policy ${id} @obligations is not JSON (${errorMessage(error)})`;
    }
    const parsed = ObligationList.safeParse(raw);
    if (!parsed.success) return `${source}: policy ${id} @obligations: ${formatZodIssues(parsed.error)}`;
    obligations = [...parsed.data];
  } else if (annotations.obligations !== undefined) {
    return `${source}: policy ${id} is ${decision.data} and must not carry @obligations`;
  }
  return { id, effect: 'permit', decision: decision.data, reason, obligations, source };
}
