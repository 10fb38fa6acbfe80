import { errorMessage, toError } from '@aeh/harness/errors';
import type { ModelProvider, ProviderRegistry } from '@aeh/models';
import { DEFAULT_CANARY_PATTERNS, redactText } from '../control/redaction.js';

/** What one probe found: the provider answered (and as which model), or the scrubbed error text. */
export type ProbeResult = { ok: true; model: string; latency_ms: number } | { ok: false; error: string };

/** Per probe; a provider that cannot answer "OK" in this long is not usable for a campaign either. */
export const PROBE_TIMEOUT_MS = 20_000;

/**
 * `soclab providers --check ID --probe`: one tiny request (a few tokens) through the real adapter, so a wrong key,
 * a wrong URL, an unknown model or nothing listening shows up before a campaign starts. Nothing is retried. The
 * error text comes from the adapter, which scrubs the API key; canaries are redacted on top.
 */
export async function probeProvider(
  registry: ProviderRegistry,
  id: string,
  model: string,
  deployment?: string,
): Promise<ProbeResult> {
  let provider: ModelProvider;
  try {
    provider = registry.get(id, model, { timeoutMs: PROBE_TIMEOUT_MS, ...(deployment ? { deployment } : {}) });
  } catch (error) {
    return { ok: false, error: redactText(errorMessage(error), DEFAULT_CANARY_PATTERNS) };
  }
  const started = performance.now();
  try {
    const reply = await provider.generate(
      {
        // A working stage name: the soclab.agent.v1 adapter accepts only those.
        stage: 'collect_identity',
        system_prompt: 'This is a connectivity check.',
        messages: [{ role: 'user', content: 'Reply with the single word OK.', trust: 'trusted', tool_name: null }],
        tools: [],
        response_schema: null,
        max_output_tokens: 16,
        temperature: 0,
        run_id: null,
        trace_id: null,
        incident_id: null,
      },
      AbortSignal.timeout(PROBE_TIMEOUT_MS),
    );
    if (reply.finish_reason === 'error') {
      return {
        ok: false,
        error: redactText(reply.output_text.slice(0, 300) || 'error reply', DEFAULT_CANARY_PATTERNS),
      };
    }
    return { ok: true, model: reply.model, latency_ms: performance.now() - started };
  } catch (error) {
    const e = toError(error);
    return { ok: false, error: redactText(`${e.name}: ${e.message}`, DEFAULT_CANARY_PATTERNS) };
  } finally {
    await (provider as { close?: () => Promise<void> }).close?.();
  }
}
