import {
  type Env,
  estimateTokens,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type ModelUsage,
  type ProviderCapabilities,
  type ProviderEntry,
  ProviderError,
} from '@aeh/models';
import type { InvestigationResult } from '../contracts/investigation.js';
import type { McpAgentLaunch, McpAgentTransport } from '../mcp/agent-process.js';
import type { SelfDrivenAgent } from '../mcp/self-driven.js';
import type { McpLimitsInput } from '../mcp/session.js';
import type { InvestigationOptions } from '../orchestrator/investigation.js';

/**
 * The `mcp` provider (bring your own agent, option 3): the agent under test is any MCP client. For each scenario
 * run the lab serves the incident's tools over MCP, launches the agent command, and mediates every `tools/call`
 * through the run's port (see src/mcp/). It answers no model requests: the runner lets it investigate by itself.
 */

export const MCP_PROVIDER_ID = 'mcp';
export const MCP_ADAPTER_VERSION = '1.0.0';
export const MCP_DEFAULT_MODEL = 'agent';

const CAPABILITIES: ProviderCapabilities = Object.freeze({
  tool_calling: true,
  structured_output: true,
  streaming: false,
  usage_reporting: false,
  multimodal_input: false,
});

export interface McpAgentProviderOptions extends McpAgentLaunch {
  /** Label recorded on every proposal and turn (default `agent`). */
  model?: string;
  limits?: McpLimitsInput;
  /** false only for the `labels` ablation (see McpRunSession). */
  labelUntrusted?: boolean;
}

const positive = (env: Env, name: string): number | undefined => {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new ProviderError(`${name} must be a positive number (got '${raw}')`);
  return n;
};

export class McpAgentProvider implements ModelProvider, SelfDrivenAgent {
  readonly providerId = MCP_PROVIDER_ID;
  readonly model: string;
  readonly #options: McpAgentProviderOptions;

  constructor(options: McpAgentProviderOptions) {
    if (!options.command.trim() && !options.attended) {
      throw new ProviderError('the mcp provider needs an agent command (--agent-command)');
    }
    this.#options = options;
    this.model = options.model?.trim() || MCP_DEFAULT_MODEL;
  }

  /** From SOCLAB_MCP_AGENT_COMMAND and friends (see the registry entry). */
  static fromEnv(env: Env, model?: string): McpAgentProvider {
    const transport = (env.SOCLAB_MCP_AGENT_TRANSPORT?.trim() || 'http') as McpAgentTransport;
    if (transport !== 'http' && transport !== 'stdio') {
      throw new ProviderError(`SOCLAB_MCP_AGENT_TRANSPORT must be http or stdio (got '${transport}')`);
    }
    const maxCalls = positive(env, 'SOCLAB_MCP_MAX_CALLS');
    const maxSeconds = positive(env, 'SOCLAB_MCP_MAX_SECONDS');
    return new McpAgentProvider({
      command: env.SOCLAB_MCP_AGENT_COMMAND ?? '',
      transport,
      model,
      passEnv: (env.SOCLAB_MCP_AGENT_PASS_ENV ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      limits: {
        ...(maxCalls !== undefined ? { max_calls: Math.floor(maxCalls) } : {}),
        ...(maxSeconds !== undefined ? { max_seconds: maxSeconds } : {}),
      },
    });
  }

  get transport(): McpAgentTransport {
    return this.#options.transport ?? 'http';
  }

  describeCapabilities(): ProviderCapabilities {
    return CAPABILITIES;
  }

  /** What a model would be sent (the agent reports no usage of its own, so runs record none). */
  countUsage(request: ModelRequest): ModelUsage {
    const text = [request.system_prompt, ...request.messages.map((m) => m.content)].join('\n');
    return { input_tokens: estimateTokens(text), output_tokens: 0, estimated: true };
  }

  async investigate(options: InvestigationOptions): Promise<InvestigationResult> {
    // The run session (its MCP tool catalog and zod schemas) loads on the first MCP run, not with the registry.
    const { McpRunSession, mcpTraceId } = await import('../mcp/session.js');
    const runId = options.runId ?? crypto.randomUUID();
    const session = new McpRunSession({
      incidentId: options.incidentId,
      alert: options.alert,
      port: options.port,
      runId,
      traceId: options.traceId ?? mcpTraceId(runId),
      providerId: this.providerId,
      model: this.model,
      agentId: options.agentId,
      delegatedUserId: options.delegatedUserId,
      limits: this.#options.limits,
      labelUntrusted: this.#options.labelUntrusted,
      signal: options.signal,
      onTurn: options.onTurn,
      onProposal: options.onProposal,
    });
    // The MCP server SDK and its HTTP stack (~120 ms of module loading) load on the first MCP run only.
    const { runMcpAgent } = await import('../mcp/agent-process.js');
    await runMcpAgent(session, this.#options);
    return session.result();
  }

  withoutTrustLabels(): McpAgentProvider {
    return new McpAgentProvider({ ...this.#options, model: this.model, labelUntrusted: false });
  }

  #notAModel(): never {
    throw new ProviderError(
      'the mcp provider drives an MCP agent that chooses its own steps; it answers no model requests',
      {
        code: 'not_a_model',
      },
    );
  }

  async generate(_request: ModelRequest): Promise<ModelResponse> {
    return this.#notAModel();
  }

  async generateStructured(_request: ModelRequest): Promise<ModelResponse> {
    return this.#notAModel();
  }

  async requestTool(_request: ModelRequest): Promise<ModelResponse> {
    return this.#notAModel();
  }

  async continueAfterTool(_request: ModelRequest): Promise<ModelResponse> {
    return this.#notAModel();
  }

  // biome-ignore lint/correctness/useYield: an MCP agent never streams model text.
  async *stream(_request: ModelRequest): AsyncIterable<string> {
    this.#notAModel();
  }
}

/** Registry entry for `mcp` (added by the soclab provider registry). */
export const mcpEntry: ProviderEntry = {
  id: MCP_PROVIDER_ID,
  adapter: 'McpAgentProvider (free-form MCP agent; the lab is its MCP server)',
  adapterVersion: MCP_ADAPTER_VERSION,
  envVars: ['SOCLAB_MCP_AGENT_COMMAND'],
  optionalEnvVars: [
    'SOCLAB_MCP_AGENT_TRANSPORT',
    'SOCLAB_MCP_AGENT_PASS_ENV',
    'SOCLAB_MCP_MAX_CALLS',
    'SOCLAB_MCP_MAX_SECONDS',
  ],
  capabilities: CAPABILITIES,
  defaultModel: MCP_DEFAULT_MODEL,
  validationLevel: 'end-to-end',
  // Reports show this next to the agent, so it also says which way of bringing an agent was used.
  validation:
    'bring-your-own-agent option 3 (free-form MCP agent): the reference MCP agent (examples/mcp-soc-agent) run over Streamable HTTP and stdio, and a hostile-client suite',
  description: 'Bring your own agent, option 3: any MCP client; every tools/call is mediated by the lab',
  notes: ['usage and cost are unknown (the agent reports none)', 'set by soclab campaign --agent-command'],
  create(env: Env, model: string) {
    return McpAgentProvider.fromEnv(env, model);
  },
};
