import { isMainThread, parentPort } from 'node:worker_threads';
import { errorMessage } from '@aeh/harness/errors';
import { runCampaign } from '../campaign/run.js';
import type { PendingApproval } from '../contracts/approvals.js';
import { reproducibleScope } from '../contracts/reproducible.js';
import type { ApproverVerdict, HumanApprovalChannel, HumanReviewContext } from '../control/approver.js';
import { notingStore } from '../evidence/noting-store.js';
import { resumingStore } from '../evidence/resume-replay.js';
import type { EvidenceStore, SqlEvidenceStore } from '../evidence/store.js';
import { openEvidenceStore } from '../evidence/store.js';
import type { CampaignJob, FromWorker, ToWorker } from './campaign-job.js';

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A campaign worker thread: runs one campaign at a time outside the API's event loop, writing evidence through its
 * own connection to the shared store, and asks the API's approvals inbox (over the thread's message port) when a
 * run needs a person. Started by `CampaignWorkerPool`; does nothing when imported on the main thread.
 */
function serve(port: NonNullable<typeof parentPort>): void {
  const send = (message: FromWorker) => port.postMessage(message);
  const stores = new Map<string, Promise<SqlEvidenceStore>>();
  const verdicts = new Map<number, (verdict: ApproverVerdict | null) => void>();
  let controller: AbortController | null = null;
  let nextRequest = 0;

  const storeFor = (url: string): Promise<SqlEvidenceStore> => {
    let store = stores.get(url);
    if (!store) {
      store = openEvidenceStore(url);
      stores.set(url, store);
    }
    return store;
  };

  /** The shared store as the campaign sees it: reports each new chain (so a cancel can close it); never closed. */
  const reporting = (store: SqlEvidenceStore): EvidenceStore => {
    const seen = new Set<string>();
    const note = (runId: string) => {
      if (seen.has(runId)) return;
      seen.add(runId);
      send({ type: 'run_id', run_id: runId });
    };
    // Scripted runs only await microtasks (SQLite answers synchronously), so without a macrotask turn per write
    // the thread would read an abort or an approval decision from its port only once the campaign is over.
    return notingStore(store, async (runId) => {
      note(runId);
      await nextTurn();
    });
  };

  /** Human approvals are decided in the API process: each review is a round trip over the port. */
  const humanChannel: HumanApprovalChannel = {
    approverFor: (context: HumanReviewContext) => ({
      name: 'human',
      review: (pending: PendingApproval) =>
        new Promise<ApproverVerdict | null>((resolve) => {
          nextRequest += 1;
          verdicts.set(nextRequest, resolve);
          // The seeded scope the run asks from (campaign label/scenario/repeat/attempt), persisted with the request.
          const scope = reproducibleScope()?.name;
          send({
            type: 'approval',
            request_id: nextRequest,
            pending,
            context: scope ? { ...context, scope } : context,
          });
        }),
    }),
  };

  const run = async (job: CampaignJob, env: Record<string, string | undefined>): Promise<void> => {
    controller = new AbortController();
    const signal = controller.signal;
    try {
      // Providers the server loaded from provider_modules: this thread has its own module registry.
      const [{ loadProviderModulesFromEnv }, { builtinProviderIds }] = await Promise.all([
        import('../providers/modules.js'),
        import('../providers/registry.js'),
      ]);
      await loadProviderModulesFromEnv(env, builtinProviderIds());
      const store = await storeFor(job.database_url);
      const result = await runCampaign(job.options, {
        signal,
        runDir: job.run_dir,
        evidence: job.resume ? resumingStore(reporting(store)) : reporting(store),
        epochMs: job.epoch_ms,
        resume: job.resume,
        env,
        approvalService: job.human ? humanChannel : undefined,
        // The API persists each answered turn; sent before the run's approval request, so it is stored first.
        tape: job.tape ? { entries: job.tape, env, record: (entry) => send({ type: 'tape', entry }) } : undefined,
        queue: job.queue,
        onStart: ({ total }) => send({ type: 'start', total }),
        onProgress: (progress) => send({ type: 'progress', progress }),
      });
      const { scorecard: _scorecard, ...rest } = result;
      // Structured clone keeps plain data only; a JSON round trip drops anything that is not (undefined, functions).
      send({ type: 'done', result: { run: JSON.parse(JSON.stringify(rest)) } });
    } catch (error) {
      send({ type: 'failed', message: errorMessage(error), aborted: signal.aborted });
    } finally {
      controller = null;
      for (const resolve of verdicts.values()) resolve(null);
      verdicts.clear();
    }
  };

  port.on('message', (message: ToWorker) => {
    if (message.type === 'run') void run(message.job, message.env);
    else if (message.type === 'abort') controller?.abort();
    else if (message.type === 'verdict') {
      const resolve = verdicts.get(message.request_id);
      verdicts.delete(message.request_id);
      resolve?.(message.verdict);
    }
  });
  send({ type: 'ready' });
}

if (!isMainThread && parentPort) serve(parentPort);
