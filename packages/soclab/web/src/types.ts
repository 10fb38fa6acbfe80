/** Response shapes, imported (type-only) from the server's own definitions so they cannot drift. */

import type { ActionData, FindingData, ModelTurnData, Replay, ReplayStep } from '../../src/api/replay';
import type { CampaignView } from '../../src/api/schemas';
import type { RunRecord } from '../../src/campaign/record';
import type { Scorecard } from '../../src/reports/scorecard';
import type { Assessment } from '../../src/scoring/result';

export type {
  ActionData,
  Assessment,
  CampaignView,
  FindingData,
  ModelTurnData,
  Replay,
  ReplayStep,
  RunRecord,
  Scorecard,
};

export interface CampaignDetail extends CampaignView {
  info: Record<string, unknown> | null;
  assessment: Assessment | null;
  runs: RunRecord[];
}

export interface Me {
  version: string;
  you: { name: string; role: 'viewer' | 'operator' | 'approver' | 'admin' };
  scenarios: number;
  store: string;
}

export interface ScenarioRow {
  id: string;
  title: string;
  benign: boolean;
  family: string;
  difficulty: string;
  attack_class: string;
  expected_control: string;
  needs_mock: boolean;
}

export interface ProviderRow {
  provider_id: string;
  configured: boolean;
  approved: boolean;
  default_model: string;
  missing_env_vars: string[];
  validation: string;
}

export interface PendingApproval {
  approval_id: string;
  proposal_id: string;
  campaign_id: string | null;
  run_id: string;
  scenario_id: string;
  incident_id: string;
  tool_name: string;
  arguments: Record<string, unknown>;
  rationale: string;
  evidence_count: number;
  requested_by: { agent_id: string; delegated_user_id: string };
  model: string;
  reason_codes: string[];
  requested_at: string;
  deadline: string;
}

export interface ApprovalHistoryRow {
  approval_id: string;
  campaign_id: string | null;
  scenario_id: string;
  tool_name: string;
  arguments: Record<string, unknown>;
  reason_codes: string[];
  outcome: string;
  approver_id: string | null;
  reason: string | null;
  requested_at: string;
  decided_at: string | null;
}

export interface StoredEvent {
  sequence: number;
  event_type: string;
  payload: Record<string, unknown>;
  payload_hash: string;
  previous_hash: string;
  event_hash: string;
  recorded_at: string;
}

export const can = (me: Me | null, what: 'run' | 'approve'): boolean =>
  !!me &&
  (me.you.role === 'admin' ||
    (what === 'run' && me.you.role === 'operator') ||
    (what === 'approve' && me.you.role === 'approver'));
