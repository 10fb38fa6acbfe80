import type { CampaignRequestInput } from '../../../src/campaign/run.js';
import { startAnthropicStandIn } from './anthropic-messages.js';
import type { BrainKind } from './brain.js';
import { startGeminiStandIn } from './gemini.js';
import { startOpenAIStandIn } from './openai-chat.js';
import type { StandIn, StandInOptions } from './server.js';

/** How one vendor provider is pointed at its stand-in: the server, the environment and the campaign settings. */
export interface VendorSetup {
  provider: string;
  /** The `--model` a user would pass. */
  model: string;
  /** The name the stand-in reports back (a dated snapshot for OpenAI, Azure and Anthropic aliases). */
  returned: string;
  key: string | null;
  start(options: StandInOptions): Promise<StandIn>;
  env(url: string, key: string | null): Record<string, string>;
  /** Extra campaign settings (Azure's deployment, a declared price for an unpriced gateway model). */
  request?: Partial<CampaignRequestInput>;
}

const openaiDated = (m: string) => (m === 'gpt-4o-mini' ? 'gpt-4o-mini-2024-07-18' : m);
const anthropicAliases: Record<string, string> = {
  'claude-sonnet-4-0': 'claude-sonnet-4-20250514',
  'claude-3-5-haiku-latest': 'claude-3-5-haiku-20241022',
};

/** Every vendor provider of the registry, each against the stand-in that speaks its wire format. */
export const VENDORS: readonly VendorSetup[] = [
  {
    provider: 'openai',
    model: 'gpt-4o-mini',
    returned: 'gpt-4o-mini-2024-07-18',
    key: 'sk-proj-standin-0a1b2c3d4e5f6a7b',
    start: (o) => startOpenAIStandIn({ ...o, flavour: 'openai', reportModel: openaiDated }),
    env: (url, key) => ({ OPENAI_API_KEY: key ?? '', OPENAI_BASE_URL: `${url}/v1` }),
  },
  {
    provider: 'openai_compatible',
    model: 'acme-sec-7b',
    returned: 'acme-sec-7b',
    key: 'gw-standin-9f8e7d6c5b4a3928',
    start: (o) => startOpenAIStandIn({ ...o, flavour: 'compatible' }),
    env: (url, key) => ({ OPENAI_COMPATIBLE_BASE_URL: `${url}/v1`, OPENAI_COMPATIBLE_API_KEY: key ?? '' }),
    request: { price: { input_per_million: 0.2, output_per_million: 0.4 } },
  },
  {
    provider: 'azure_openai',
    model: 'gpt-4o-mini',
    returned: 'gpt-4o-mini-2024-07-18',
    key: 'azure-standin-5c4b3a2918f7e6d5',
    start: (o) =>
      startOpenAIStandIn({
        ...o,
        flavour: 'azure',
        deployments: { 'soc-prod-mini': 'gpt-4o-mini' },
        reportModel: openaiDated,
      }),
    env: (url, key) => ({ AZURE_OPENAI_API_KEY: key ?? '', AZURE_OPENAI_ENDPOINT: url }),
    request: { deployment: 'soc-prod-mini' },
  },
  {
    provider: 'xai',
    model: 'grok-4',
    returned: 'grok-4',
    key: 'xai-standin-0f1e2d3c4b5a69788',
    start: (o) => startOpenAIStandIn({ ...o, flavour: 'compatible' }),
    env: (url, key) => ({ XAI_API_KEY: key ?? '', XAI_BASE_URL: `${url}/v1` }),
  },
  {
    provider: 'ollama',
    model: 'llama3.2:3b',
    returned: 'llama3.2:3b',
    key: null,
    start: (o) => startOpenAIStandIn({ ...o, flavour: 'ollama', models: ['llama3.2:3b'] }),
    env: (url) => ({ OLLAMA_BASE_URL: url }),
  },
  {
    provider: 'anthropic',
    model: 'claude-sonnet-4-0',
    returned: 'claude-sonnet-4-20250514',
    key: 'sk-ant-standin-7e6d5c4b3a291807',
    start: (o) => startAnthropicStandIn({ ...o, reportModel: (m) => anthropicAliases[m] ?? m }),
    env: (url, key) => ({ ANTHROPIC_API_KEY: key ?? '', ANTHROPIC_BASE_URL: `${url}/v1` }),
  },
  {
    provider: 'gemini',
    model: 'gemini-2.5-flash',
    returned: 'gemini-2.5-flash',
    key: 'AIza-standin-1029384756abcdef',
    start: (o) => startGeminiStandIn(o),
    env: (url, key) => ({ GOOGLE_API_KEY: key ?? '', GEMINI_BASE_URL: `${url}/v1beta` }),
  },
];

export async function startVendor(v: VendorSetup, brain: BrainKind, extra: StandInOptions = {}): Promise<StandIn> {
  return v.start({ brain, apiKey: v.key, echoKey: true, ...extra });
}
