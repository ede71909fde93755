// The cheapest authenticated call of each provider: a model list for the AI-model providers, a
// one-result search for the web-search providers (they have no free authenticated endpoint).
import type { Provider } from '../provider-keys.domain.ts';

interface ProbeRequest {
  method: 'GET' | 'POST';
  /** Appended to the base URL. */
  path: string;
  headers: Record<string, string>;
  body?: unknown;
}

interface ProviderEndpoint {
  /** Replaced by PROVIDER_API_URLS[provider] when set. */
  baseUrl: string;
  request(apiKey: string): ProbeRequest;
  /** Besides 401 and 403: an answer that still means "this key is not valid". */
  rejectsKey?(status: number, body: string): boolean;
}

const bearer = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });

export const PROVIDER_ENDPOINTS: Record<Provider, ProviderEndpoint> = {
  openai: {
    baseUrl: 'https://api.openai.com',
    request: (key) => ({ method: 'GET', path: '/v1/models', headers: bearer(key) }),
  },
  anthropic: {
    baseUrl: 'https://api.anthropic.com',
    request: (key) => ({
      method: 'GET',
      path: '/v1/models?limit=1',
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    }),
  },
  google: {
    baseUrl: 'https://generativelanguage.googleapis.com',
    // The API also takes `?key=`; the header keeps the key out of URLs and any proxy's access log.
    request: (key) => ({ method: 'GET', path: '/v1beta/models?pageSize=1', headers: { 'x-goog-api-key': key } }),
    // Google answers a bad key with 400 INVALID_ARGUMENT, reason API_KEY_INVALID, not with 401.
    rejectsKey: (status, body) => status === 400 && body.includes('API_KEY_INVALID'),
  },
  mistral: {
    baseUrl: 'https://api.mistral.ai',
    request: (key) => ({ method: 'GET', path: '/v1/models', headers: bearer(key) }),
  },
  groq: {
    baseUrl: 'https://api.groq.com',
    request: (key) => ({ method: 'GET', path: '/openai/v1/models', headers: bearer(key) }),
  },
  tavily: {
    baseUrl: 'https://api.tavily.com',
    request: (key) => ({
      method: 'POST',
      path: '/search',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      body: { query: 'api key check', max_results: 1, search_depth: 'basic' },
    }),
  },
  serper: {
    baseUrl: 'https://google.serper.dev',
    request: (key) => ({
      method: 'POST',
      path: '/search',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: { q: 'api key check', num: 1 },
    }),
  },
};
