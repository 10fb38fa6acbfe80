import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { canonicalJson, contentHash } from '../contracts/canonical.js';
import { ContractValidationError, newUuid, parseContract } from '../contracts/common.js';
import { fastExecutionGrant } from '../contracts/fast-parse.js';
import { ExecutionGrant } from '../contracts/grants.js';
import type { ActionProposal } from '../contracts/proposals.js';
import { reproducibleNow, seededBytes } from '../contracts/reproducible.js';

/** Minimum signing-key length. */
export const MIN_KEY_BYTES = 32;
/** Default grant lifetime: long enough to hand the grant to the executor, short enough to be useless later. */
export const DEFAULT_GRANT_TTL_SECONDS = 60;

/**
 * Why a grant was refused. Each has its own code so a report (and an attacker's trace) shows exactly which check
 * stopped an execution.
 */
export const GRANT_REFUSALS = {
  grant_missing: 'no execution grant',
  grant_malformed: 'grant is malformed',
  signature_invalid: 'grant signature invalid',
  grant_expired: 'grant expired',
  wrong_proposal: 'grant is for a different proposal',
  proposal_changed: 'proposal changed after the grant was issued',
  scope_mismatch: 'grant scope does not match the proposal',
  grant_replayed: 'grant already used',
} as const;
export type GrantRefusalCode = keyof typeof GRANT_REFUSALS;

/** A grant failed verification. `code` is one of `GRANT_REFUSALS`. */
export class GrantVerificationError extends Error {
  override name = 'GrantVerificationError';
  constructor(
    readonly code: GrantRefusalCode,
    detail?: string,
  ) {
    super(detail ? `${GRANT_REFUSALS[code]}: ${detail}` : GRANT_REFUSALS[code]);
  }
}

/**
 * SHA-256 over the canonical JSON of the fields a grant binds: proposal id, incident, tool, arguments (canonical),
 * agent and delegated user. Evidence, rationale, provider and model are not bound (they do not change what runs).
 */
export function proposalHash(proposal: ActionProposal): string {
  return contentHash({
    proposal_id: proposal.proposal_id,
    incident_id: proposal.incident_id,
    tool_name: proposal.tool_name,
    arguments: proposal.arguments,
    agent_id: proposal.agent_id,
    delegated_user_id: proposal.delegated_user_id,
  });
}

/** Key material from `SOCLAB_GRANT_SIGNING_KEY` (UTF-8, trimmed; blank means unset), else undefined. */
export function keyFromEnvironment(env: NodeJS.ProcessEnv = process.env): Uint8Array | undefined {
  const raw = env.SOCLAB_GRANT_SIGNING_KEY?.trim();
  return raw ? new Uint8Array(Buffer.from(raw, 'utf8')) : undefined;
}

export interface IssueOptions {
  runId: string;
  policyVersion: string;
  approvalId?: string | null;
  obligationsFulfilled?: readonly string[];
}

export interface VerifyOptions {
  /** When given, the grant must have been issued for this run. */
  runId?: string;
}

export interface GrantSignerOptions {
  /** At least 32 bytes; default: `SOCLAB_GRANT_SIGNING_KEY` if set, else 32 fresh random bytes. */
  key?: Uint8Array | string;
  ttlSeconds?: number;
  now?: () => Date;
  env?: NodeJS.ProcessEnv;
}

/** Verification only: what the executor holds. */
export interface GrantVerifier {
  verify(grant: unknown, proposal: ActionProposal, options?: VerifyOptions): ExecutionGrant;
}

/**
 * Issues and verifies execution grants: HMAC-SHA256 (hex) over the RFC 8785 canonical JSON of every grant field
 * except `signature` — proposal hash, tool, incident, run id, expiry, nonce, policy version, approval id. The
 * proposal hash covers the canonical arguments, so changing one argument breaks the binding. The key lives in a
 * private field and never appears in logs, errors or JSON.
 *
 * @example
 *   const signer = new GrantSigner();
 *   const grant = signer.issue(proposal, { runId, policyVersion: '2026.09.05-1' });
 *   signer.verify(grant, proposal); // throws GrantVerificationError on any mismatch
 */
export class GrantSigner implements GrantVerifier {
  readonly #key: Uint8Array;
  readonly ttlSeconds: number;
  private readonly now: () => Date;

  constructor(options: GrantSignerOptions = {}) {
    const provided = options.key ?? keyFromEnvironment(options.env);
    const key =
      provided === undefined
        ? // Seeded campaigns only: the key follows from the seed (contracts/reproducible.ts says what that gives up).
          new Uint8Array(seededBytes(MIN_KEY_BYTES) ?? randomBytes(MIN_KEY_BYTES))
        : typeof provided === 'string'
          ? new Uint8Array(Buffer.from(provided, 'utf8'))
          : new Uint8Array(provided);
    if (key.byteLength < MIN_KEY_BYTES)
      throw new RangeError(`grant signing key must be at least ${MIN_KEY_BYTES} bytes`);
    const ttl = options.ttlSeconds ?? DEFAULT_GRANT_TTL_SECONDS;
    if (!(ttl > 0)) throw new RangeError('grant ttl must be positive');
    this.#key = key;
    this.ttlSeconds = ttl;
    this.now = options.now ?? reproducibleNow;
  }

  /** Sign a grant for exactly this proposal. */
  issue(proposal: ActionProposal, options: IssueOptions): ExecutionGrant {
    const issuedAt = this.now();
    const unsigned = {
      grant_id: newUuid(),
      proposal_id: proposal.proposal_id,
      proposal_hash: proposalHash(proposal),
      run_id: options.runId,
      incident_id: proposal.incident_id,
      tool_name: proposal.tool_name,
      policy_version: options.policyVersion,
      approval_id: options.approvalId ?? null,
      obligations_fulfilled: [...(options.obligationsFulfilled ?? [])],
      nonce: (seededBytes(16) ?? randomBytes(16)).toString('hex'),
      issued_at: issuedAt.toISOString(),
      expires_at: new Date(issuedAt.getTime() + this.ttlSeconds * 1000).toISOString(),
    };
    const input = { ...unsigned, signature: this.sign(unsigned) };
    // Checked as the schema would (contracts/fast-parse.ts); verify() still parses every grant presented to it.
    return fastExecutionGrant(input) ?? parseContract('ExecutionGrant', ExecutionGrant, input);
  }

  /**
   * Check, in order: shape, signature (constant-time), expiry, proposal id, proposal hash, then incident, tool and
   * run. Returns the parsed grant; throws `GrantVerificationError` with the first failing check's code.
   */
  verify(grant: unknown, proposal: ActionProposal, options: VerifyOptions = {}): ExecutionGrant {
    if (grant === null || grant === undefined) throw new GrantVerificationError('grant_missing', proposal.tool_name);
    let parsed: ExecutionGrant;
    try {
      parsed = parseContract('ExecutionGrant', ExecutionGrant, grant);
    } catch (error) {
      const detail = error instanceof ContractValidationError ? error.message : undefined;
      throw new GrantVerificationError('grant_malformed', detail);
    }
    const { signature, ...unsigned } = parsed;
    const expected = Buffer.from(this.sign(unsigned), 'hex');
    const given = Buffer.from(signature, 'hex');
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      throw new GrantVerificationError('signature_invalid');
    }
    if (this.now().getTime() >= Date.parse(parsed.expires_at)) throw new GrantVerificationError('grant_expired');
    if (parsed.proposal_id !== proposal.proposal_id) throw new GrantVerificationError('wrong_proposal');
    if (parsed.proposal_hash !== proposalHash(proposal)) throw new GrantVerificationError('proposal_changed');
    if (parsed.incident_id !== proposal.incident_id || parsed.tool_name !== proposal.tool_name) {
      throw new GrantVerificationError('scope_mismatch', 'incident or tool');
    }
    if (options.runId !== undefined && parsed.run_id !== options.runId) {
      throw new GrantVerificationError('scope_mismatch', 'run');
    }
    return parsed;
  }

  /** A verify-only view sharing this key (what the executor is given). */
  verifier(): GrantVerifier {
    return { verify: (grant, proposal, options) => this.verify(grant, proposal, options) };
  }

  private sign(unsigned: Omit<ExecutionGrant, 'signature'>): string {
    return createHmac('sha256', this.#key).update(canonicalJson(unsigned), 'utf8').digest('hex');
  }

  toJSON(): Record<string, unknown> {
    return { ttlSeconds: this.ttlSeconds, key: '[REDACTED]' };
  }
}
