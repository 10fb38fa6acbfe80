/** Signed single-use execution grants. */
import { z } from 'zod';
import { Identifier, NonEmpty, newUuid, Sha256Hex, UtcTimestamp, Uuid } from './common.js';

/**
 * A signed, single-use, short-lived permission to execute exactly one proposal. `signature` is an HMAC-SHA256 (hex)
 * over the RFC 8785 canonical JSON of every other field; `proposal_hash` binds the proposal's id, incident, tool,
 * arguments, agent and delegated user.
 */
export const ExecutionGrant = z
  .strictObject({
    grant_id: Uuid.default(newUuid),
    proposal_id: Uuid,
    proposal_hash: Sha256Hex,
    run_id: NonEmpty,
    incident_id: NonEmpty,
    tool_name: Identifier,
    policy_version: NonEmpty,
    approval_id: Uuid.nullable().default(null),
    obligations_fulfilled: z.array(Identifier).readonly().default([]),
    /** Random single-use value; the executor refuses a nonce it has already honoured. */
    nonce: NonEmpty,
    issued_at: UtcTimestamp,
    expires_at: UtcTimestamp,
    signature: Sha256Hex,
  })
  .superRefine((g, ctx) => {
    if (Date.parse(g.expires_at) <= Date.parse(g.issued_at)) {
      ctx.addIssue({ code: 'custom', path: ['expires_at'], message: 'expires_at must be after issued_at' });
    }
  })
  .readonly();
export type ExecutionGrant = z.infer<typeof ExecutionGrant>;
export type ExecutionGrantInput = z.input<typeof ExecutionGrant>;
