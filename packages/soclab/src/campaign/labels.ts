import type { ModelProvider, ModelRequest } from '@aeh/models';
import { asSelfDriven } from '../mcp/self-driven.js';
import { wrapProvider } from '../providers/wrap-provider.js';

/**
 * The `labels` ablation: the model sees the same messages with the untrusted-data labelling removed (every message
 * marked trusted, and the system prompt's sentence that tool output is untrusted data dropped). Everything else,
 * including the control plane, stays in place.
 *
 * The scripted mock decides what to obey *by* the label, so with the mock this ablation measures nothing; campaigns
 * skip it for scripted providers and say so.
 */
export function withoutTrustLabels(provider: ModelProvider): ModelProvider {
  // An MCP agent is shown tool results by the lab's MCP server, which drops the marking itself.
  const driven = asSelfDriven(provider);
  if (driven?.withoutTrustLabels) return driven.withoutTrustLabels();
  const strip = (request: ModelRequest): ModelRequest => ({
    ...request,
    system_prompt: request.system_prompt
      .split(/(?<=\.)\s+/)
      .filter((sentence) => !/untrusted|never follow/i.test(sentence))
      .join(' '),
    messages: request.messages.map((m) => ({ ...m, trust: 'trusted' as const })),
  });
  return wrapProvider(provider, {
    countUsage: (request) => provider.countUsage(strip(request)),
    generate: (request, signal) => provider.generate(strip(request), signal),
    generateStructured: (request, signal) => provider.generateStructured(strip(request), signal),
    requestTool: (request, signal) => provider.requestTool(strip(request), signal),
    continueAfterTool: (request, toolName, toolResult, signal) =>
      provider.continueAfterTool(strip(request), toolName, toolResult, signal),
    stream: (request, signal) => provider.stream(strip(request), signal),
  });
}
