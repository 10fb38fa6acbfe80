import type { CampaignProgress, CampaignRequestInput, CampaignRun } from '../campaign/run.js';
import type { PendingApproval } from '../contracts/approvals.js';
import type { ApproverVerdict, HumanReviewContext } from '../control/approver.js';
import type { TapeEntry } from '../providers/resume-tape.js';

/**
 * One campaign handed to a worker: everything it needs to run on its own, with its own connection to the shared
 * store. The environment travels only between threads of one process (never through Redis or a file).
 */
export interface CampaignJob {
  campaign_id: string;
  /** What `runCampaign` is asked to run (mode, provider, repeats, approver, concurrency, timeout...). */
  options: CampaignRequestInput;
  run_dir: string;
  /** The store's URL or SQLite path, as the API server opened it. */
  database_url: string;
  /** True when the runs ask a person through the server's approvals inbox. */
  human: boolean;
  /** Redis URL: the worker thread coordinates the campaign and its scenario runs go to `soclab worker` processes. */
  queue?: string;
  /** Seeded campaigns: the reproducible clock's start, as persisted when the campaign was created. */
  epoch_ms?: number;
  /** Continue the run folder's journal and replay the chains written before a restart (api/campaigns.ts). */
  resume?: boolean;
  /** Record the live answers (resume tape); on a resume, the turns recorded before (providers/resume-tape.ts). */
  tape?: TapeEntry[];
}

/** The finished campaign as a worker returns it (the scorecard is rebuilt on demand by the server). */
export interface CampaignJobResult {
  run: Omit<CampaignRun, 'scorecard'>;
}

/** Messages from the pool to a worker. */
export type ToWorker =
  | { type: 'run'; job: CampaignJob; env: Record<string, string | undefined> }
  | { type: 'abort' }
  | { type: 'verdict'; request_id: number; verdict: ApproverVerdict | null };

/** Messages from a worker to the pool. */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'start'; total: number }
  | { type: 'progress'; progress: CampaignProgress }
  | { type: 'run_id'; run_id: string }
  | { type: 'tape'; entry: TapeEntry }
  | { type: 'approval'; request_id: number; pending: PendingApproval; context: HumanReviewContext }
  | { type: 'done'; result: CampaignJobResult }
  | { type: 'failed'; message: string; aborted: boolean };
