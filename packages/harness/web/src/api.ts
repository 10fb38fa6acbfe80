/** Typed access to the viewer's JSON API (types come from the server code; nothing is duplicated). */
import type { ExperimentComparison } from '../../src/comparison/models.js';
import type { TestCaseResult } from '../../src/core/result.js';
import type {
  CaseDelta,
  CaseSummary,
  FlakyReport,
  HistoryPoint,
  Page,
  RunDetail,
  RunSummary,
  SuiteSummary,
} from '../../src/store/types.js';
import type { ComparePayload } from '../../src/viewer/server.js';

export type {
  CaseDelta,
  CaseSummary,
  ComparePayload,
  ExperimentComparison,
  FlakyReport,
  HistoryPoint,
  Page,
  RunDetail,
  RunSummary,
  SuiteSummary,
  TestCaseResult,
};

export type Params = Record<string, string | number | boolean | undefined | null>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function qs(params: Params = {}): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') search.set(k, String(v));
  const s = search.toString();
  return s ? `?${s}` : '';
}

export async function api<T>(path: string, params?: Params, signal?: AbortSignal): Promise<T> {
  const res = await fetch(`api/${path}${qs(params)}`, { signal, headers: { accept: 'application/json' } });
  const body = (await res.json().catch(() => null)) as { error?: string } | null;
  if (!res.ok) throw new ApiError(res.status, body?.error ?? `${res.status} ${res.statusText}`);
  return body as T;
}

export const seg = (s: string) => encodeURIComponent(s);

export const getRuns = (params: Params) => api<Page<RunSummary>>('runs', params);
export const getRun = (id: string) => api<RunDetail>(`runs/${seg(id)}`);
export const getCases = (id: string, params: Params, signal?: AbortSignal) =>
  api<Page<CaseSummary>>(`runs/${seg(id)}/cases`, params, signal);
export const getCase = (id: string, testId: string, repeat: number) =>
  api<TestCaseResult>(`runs/${seg(id)}/cases/${seg(testId)}/${repeat}`);
export const getSuites = () => api<SuiteSummary[]>('suites');
export const getHistory = (suite: string, metric: string) =>
  api<HistoryPoint[]>(`suites/${seg(suite)}/history`, { metric, limit: 200 });
export const getFlaky = (suite: string) => api<FlakyReport>(`suites/${seg(suite)}/flaky`);
export const getCompare = (baseline: string, candidate: string) =>
  api<ComparePayload>('compare', { baseline, candidate });
export const getCompareCases = (params: Params, signal?: AbortSignal) =>
  api<Page<CaseDelta>>('compare/cases', params, signal);
