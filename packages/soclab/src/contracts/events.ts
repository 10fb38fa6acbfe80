import { z } from 'zod';
import { JsonObject, NonEmpty, newUuid, Sha256Hex, Str, strictModel, UtcTimestamp, Uuid } from './common.js';

/** Event types on the chain: dotted lowercase names such as `run.started`, `model.turn`, `gateway.grant_issued`. */
export const EventType = z
  .string()
  .trim()
  .max(120)
  .regex(/^[a-z][a-z0-9_.]*$/, 'must match ^[a-z][a-z0-9_.]*$');
export type EventType = z.infer<typeof EventType>;

/** Well-known event types written by the scenario runner, in the order they appear in a run. */
export const EVENT_TYPES = Object.freeze({
  runStarted: 'run.started',
  modelTurn: 'model.turn',
  toolOutput: 'tool.output',
  finding: 'finding',
  gatewayPrefix: 'gateway.',
  executionReceipt: 'execution.receipt',
  harness: 'harness.attack',
  runFinished: 'run.finished',
} as const);

/** A request to append one event to a run's chain. */
export const AuditEvent = strictModel({
  event_id: Uuid.default(newUuid),
  run_id: NonEmpty,
  event_type: EventType,
  payload: JsonObject,
});
export type AuditEvent = z.infer<typeof AuditEvent>;
export type AuditEventInput = z.input<typeof AuditEvent>;

/** One stored, hash-linked event. */
export const StoredAuditEvent = strictModel({
  event_id: NonEmpty,
  run_id: NonEmpty,
  sequence: z.number().int().min(1),
  event_type: EventType,
  payload: JsonObject,
  payload_hash: Sha256Hex,
  previous_hash: Sha256Hex,
  event_hash: Sha256Hex,
  recorded_at: UtcTimestamp,
});
export type StoredAuditEvent = z.infer<typeof StoredAuditEvent>;

/** Result of verifying one run's chain. `first_invalid_sequence` names where the chain first diverges. */
export const ChainVerification = strictModel({
  run_id: NonEmpty,
  valid: z.boolean(),
  length: z.number().int().min(0),
  root_hash: Sha256Hex.nullable(),
  first_invalid_sequence: z.number().int().min(1).nullable(),
  reason: Str.nullable(),
});
export type ChainVerification = z.infer<typeof ChainVerification>;
