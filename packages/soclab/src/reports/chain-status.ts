import type { Scorecard } from './scorecard.js';

/**
 * The evidence-integrity sentence of every report: whether the chains verified, and when. A scorecard rebuilt
 * from stored data either re-verified the chains then (`verification.how: reverified`, the API does) or says the
 * result dates from the end of the runs and was not re-verified since: a report must never vouch for a chain
 * that was edited after it was checked.
 */
export function chainStatusText(chains: Scorecard['chains']): string {
  const total = chains.runs.length;
  const failed = chains.runs.filter((r) => !r.valid);
  const verdict =
    failed.length === 0
      ? `All ${total} evidence chains verified`
      : `${failed.length} of ${total} evidence chain(s) failed verification (${failed
          .slice(0, 3)
          .map(
            (r) =>
              `${r.run_id} ${r.first_invalid_sequence === null ? 'changed since the run ended' : `at sequence ${r.first_invalid_sequence}`}`,
          )
          .join('; ')}${failed.length > 3 ? '; ...' : ''})`;
  const v = chains.verification;
  if (v?.how === 'reverified') return `${verdict}, re-verified against the evidence store at ${v.at}.`;
  const when = v?.at ? ` at ${v.at}` : '';
  return `${verdict} when the runs ended${when}; not re-verified since.`;
}
