import { join, relative, resolve } from 'node:path';
import { type AblatableControl, CONTROL_DESCRIPTIONS } from '../control/ablation-switches.js';
import { isLiveProvider } from '../providers/registry.js';
import { buildScorecard, comparisonRow, type Scorecard, summarize } from '../reports/scorecard.js';
import type { WrittenReports } from '../reports/write.js';
import { type AblationInput, type AblationReport, attributeAblations } from '../scoring/ablation-report.js';
import { comparePaired, type PairedComparison } from '../scoring/paired.js';
import { soclabVersion } from '../version.js';
import { scoredRun } from './record.js';
import {
  CampaignConfigError,
  type CampaignHooks,
  type CampaignProgress,
  type CampaignRequestInput,
  type CampaignRun,
  runCampaign,
} from './run.js';

/** A campaign, a baseline-versus-protected comparison, and optional per-control ablations, written to one folder. */
export interface StudyRequest extends Omit<CampaignRequestInput, 'ablate'> {
  /** Run baseline first, then protected, and compare them (mode is ignored). */
  compare?: boolean;
  /** Controls to ablate (protected minus each one); needs protected mode or `compare`. */
  ablate?: readonly AblatableControl[];
  /** Output folder: run folders and reports (default `runs/latest`). */
  out?: string;
}

export interface StudyHooks extends Omit<CampaignHooks, 'runDir' | 'onStart' | 'onProgress'> {
  onCampaignStart?(info: { label: string; runDir: string; total: number }): void;
  onProgress?(label: string, progress: CampaignProgress): void;
  onCampaignEnd?(run: CampaignRun): void;
  /** soclab version recorded on the scorecards. */
  version?: string;
}

export interface StudyResult {
  out: string;
  /** The campaign whose scorecard is the headline (protected when comparing). */
  main: CampaignRun;
  baseline: CampaignRun | null;
  ablations: { control: AblatableControl; run: CampaignRun | null; note: string | null }[];
  paired: PairedComparison | null;
  ablation: AblationReport | null;
  scorecards: { main: Scorecard; baseline: Scorecard | null };
  reports: { main: WrittenReports; baseline: WrittenReports | null };
}

/**
 * Run what `soclab campaign` and `soclab compare` run: one campaign (or baseline then protected), the requested
 * ablations, the paired comparison and attribution, then the scorecards and reports. Every campaign is its own
 * harness run folder under `out`.
 *
 * Files: campaign -> `<out>/<mode>/` (run folder) and `<out>/<mode>-{executive,technical}.html`,
 * `<mode>-scorecard.json`, `<mode>-summary.txt`. Compare -> `<out>/baseline/`, `<out>/protected/` and
 * `<out>/{executive,technical}.html`, `scorecard.json`, `summary.txt` (protected, with the comparison) plus the
 * same with a `baseline-` prefix.
 */
export async function runStudy(request: StudyRequest, hooks: StudyHooks = {}): Promise<StudyResult> {
  const out = resolve(request.out ?? join('runs', 'latest'));
  const ablate = [...(request.ablate ?? [])];
  const mode = request.compare ? 'protected' : (request.mode ?? 'protected');
  if (ablate.length > 0 && mode !== 'protected') throw new CampaignConfigError('--ablate needs --mode protected');
  const { compare: _c, ablate: _a, out: _o, ...base } = request;
  const live = isLiveProvider(request.provider ?? 'mock') && !hooks.providerFactory;
  const rel = (p: string) => relative(out, p) || '.';
  const campaign = async (label: string, req: CampaignRequestInput): Promise<CampaignRun> => {
    const runDir = join(out, label);
    // Without a shared store, each campaign opens the evidence database when its first run starts, so a bad
    // request is refused before anything is created.
    const run = await runCampaign(req, {
      ...hooks,
      runDir,
      onStart: (info) => hooks.onCampaignStart?.({ label, runDir: info.runDir, total: info.total }),
      onProgress: (p) => hooks.onProgress?.(label, p),
    });
    hooks.onCampaignEnd?.(run);
    return run;
  };
  const baseline = request.compare ? await campaign('baseline', { ...base, mode: 'baseline' }) : null;
  const main = await campaign(mode, { ...base, mode });
  const ablations: StudyResult['ablations'] = [];
  for (const control of ablate) {
    if (control === 'labels' && !live) {
      ablations.push({
        control,
        run: null,
        note: 'the scripted mock decides what to obey by the label itself, so removing labels cannot be measured with it; run the ablation with a live provider',
      });
      continue;
    }
    ablations.push({
      control,
      run: await campaign(`protected-without-${control}`, { ...base, mode: 'protected', ablate: control }),
      note: null,
    });
  }

  const paired = baseline
    ? comparePaired(baseline.records.map(scoredRun), main.records.map(scoredRun), {
        baseline: baseline.assessment.composite,
        protected: main.assessment.composite,
      })
    : null;
  const ablation =
    ablations.length > 0
      ? attributeAblations(
          main.records.map(scoredRun),
          ablations.map(
            (a): AblationInput => ({
              control: a.control,
              description: CONTROL_DESCRIPTIONS[a.control],
              runs: a.run ? a.run.records.map(scoredRun) : null,
              assessment: a.run?.assessment ?? null,
              note: a.note,
            }),
          ),
        )
      : null;
  const version = hooks.version ?? soclabVersion();
  const extraRows = ablations.flatMap((a) =>
    a.run ? [comparisonRow(summarize(a.run.info, rel(a.run.runDir)), a.run.assessment)] : [],
  );
  const mainScorecard = buildScorecard(main, {
    runFolder: rel(main.runDir),
    baseline: baseline && paired ? { run: baseline, runFolder: rel(baseline.runDir), paired } : undefined,
    ablation,
    extraRows,
    version,
  });
  const baselineScorecard = baseline ? buildScorecard(baseline, { runFolder: rel(baseline.runDir), version }) : null;
  // The report renderers (React server rendering) load only now: a study that fails earlier never pays for them.
  const { writeReports } = await import('../reports/write.js');
  const reports = {
    main: writeReports(mainScorecard, out, request.compare ? '' : `${mode}-`),
    baseline: baselineScorecard ? writeReports(baselineScorecard, out, 'baseline-') : null,
  };
  return {
    out,
    main,
    baseline,
    ablations,
    paired,
    ablation,
    scorecards: { main: mainScorecard, baseline: baselineScorecard },
    reports,
  };
}
