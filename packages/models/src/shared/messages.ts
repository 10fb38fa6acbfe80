import type { Message, ModelRequest, ToolSpec } from '../provider.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** One message body with its trust label kept visible to the model. */
export function labelMessage(message: Message): string {
  if (message.role === 'tool')
    return `[tool:${message.tool_name ?? 'unknown'} trust=${message.trust}] ${message.content}`;
  return `[trust=${message.trust}] ${message.content}`;
}

/**
 * OpenAI-style chat messages: the system prompt first, then every message; tool output and user text become user
 * messages prefixed with their trust label, so "untrusted" stays visible to the model; assistant turns pass as is.
 */
export function openAIStyleMessages(request: ModelRequest): ChatMessage[] {
  const out: ChatMessage[] = [{ role: 'system', content: request.system_prompt }];
  for (const m of request.messages) {
    if (m.role === 'assistant') out.push({ role: 'assistant', content: m.content });
    else out.push({ role: 'user', content: labelMessage(m) });
  }
  return out;
}

/** OpenAI-style tool declarations. */
export function openAIStyleTools(
  tools: readonly ToolSpec[],
): Array<{ type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } }> {
  return tools.map((t) => ({
    type: 'function' as const,
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}

/** The request plus one untrusted tool message carrying a tool result (continueAfterTool in every adapter). */
export function withToolResult(request: ModelRequest, toolName: string, toolResult: unknown): ModelRequest {
  const content = typeof toolResult === 'string' ? toolResult : JSON.stringify(toolResult);
  return {
    ...request,
    messages: [...request.messages, { role: 'tool', content, trust: 'untrusted', tool_name: toolName }],
  };
}
