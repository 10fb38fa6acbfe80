import { type ModelProvider, ProviderError } from '../provider.js';
import type { ProviderEntry } from '../registry.js';
import { requireEnv } from '../shared/env.js';
import type { VendorAdapterOptions } from './ai-sdk.js';
import { createGeminiProvider, geminiEntry } from './gemini.js';

export interface VertexProviderOptions extends VendorAdapterOptions {
  project: string;
  /** e.g. `us-central1`, or `global`. */
  location: string;
  /** OAuth2 access token, e.g. the output of `gcloud auth print-access-token`. */
  accessToken: string;
}

const IDENT = /^[a-z0-9][a-z0-9-]*$/;

/**
 * Gemini on Vertex AI: the Gemini adapter pointed at
 * `https://<location>-aiplatform.googleapis.com/v1/projects/<project>/locations/<location>/publishers/google`
 * with a bearer access token (no API key is sent).
 */
export function createVertexProvider(options: VertexProviderOptions): ModelProvider {
  if (!IDENT.test(options.project)) throw new ProviderError('GOOGLE_CLOUD_PROJECT is not a valid project id');
  if (!IDENT.test(options.location)) throw new ProviderError('GOOGLE_CLOUD_LOCATION is not a valid location');
  const host =
    options.location === 'global' ? 'aiplatform.googleapis.com' : `${options.location}-aiplatform.googleapis.com`;
  const baseURL = `https://${host}/v1/projects/${options.project}/locations/${options.location}/publishers/google`;
  const inner = options.fetch ?? globalThis.fetch;
  // The Gemini client always adds x-goog-api-key; Vertex authenticates by bearer token, so drop the placeholder.
  const vertexFetch: typeof globalThis.fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.delete('x-goog-api-key');
    return inner(input, { ...init, headers });
  };
  return createGeminiProvider({
    providerId: 'vertex',
    apiKey: 'vertex-uses-bearer-token',
    baseURL,
    headers: { Authorization: `Bearer ${options.accessToken}` },
    model: options.model,
    timeoutMs: options.timeoutMs,
    fetch: vertexFetch,
  });
}

const VERTEX_ENV_VARS = ['GOOGLE_CLOUD_PROJECT', 'GOOGLE_CLOUD_LOCATION', 'GOOGLE_VERTEX_ACCESS_TOKEN'] as const;

export const vertexEntry: ProviderEntry = {
  id: 'vertex',
  adapter: 'createVertexProvider (AI SDK @ai-sdk/google, Vertex AI endpoint)',
  adapterVersion: '1.0.0',
  envVars: VERTEX_ENV_VARS,
  regionEnvVar: 'GOOGLE_CLOUD_LOCATION',
  capabilities: { ...geminiEntry.capabilities },
  defaultModel: 'gemini-2.5-flash',
  validationLevel: 'contract-tested',
  validation: 'contract-tested against recorded fixtures (Gemini wire format on the Vertex endpoint)',
  description: 'Gemini on Google Cloud Vertex AI (bearer access token)',
  notes: ['access tokens expire after about an hour; refresh GOOGLE_VERTEX_ACCESS_TOKEN for long campaigns'],
  create(env, model, opts) {
    const [project, location, accessToken] = requireEnv('vertex', env, VERTEX_ENV_VARS);
    return createVertexProvider({ project, location, accessToken, model, ...opts });
  },
};
