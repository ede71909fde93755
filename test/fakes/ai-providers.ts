// A loopback server speaking the key-checking endpoints of the seven providers a provider key can
// belong to, each under its own path prefix (`/openai/v1/models`, `/serper/search`, ...), so that one
// server stands in for all of them via PROVIDER_API_URLS. Each endpoint authenticates the way the real
// one does and answers a bad key the way the real one does (401, Google's 400 API_KEY_INVALID,
// Serper's 403). Failures on demand: `fail(provider, 'unauthorized' | 'rate_limited' | 'server_error'
// | 'hang')`.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFakeServer } from './loopback-server.ts';

export const FAKE_PROVIDERS = ['openai', 'anthropic', 'google', 'mistral', 'groq', 'tavily', 'serper'] as const;
export type FakeProvider = (typeof FAKE_PROVIDERS)[number];
type FailureMode = 'unauthorized' | 'rate_limited' | 'server_error' | 'hang';

interface RecordedRequest {
  provider: FakeProvider;
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

interface Endpoint {
  method: 'GET' | 'POST';
  path: string;
  /** The key as the provider reads it from the request; undefined when none was sent. */
  keyOf(request: RecordedRequest): string | undefined;
  /** Checks that are not about the key (required headers, body), as the provider does them first. */
  precheck?(request: RecordedRequest): Reply | undefined;
  ok(request: RecordedRequest): unknown;
  badKey(key: string | undefined): Reply;
  rateLimited: Reply;
  serverError: Reply;
}

const bearerOf = (request: RecordedRequest) => {
  const header = request.headers.authorization;
  return typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : undefined;
};
const headerOf = (name: string) => (request: RecordedRequest) => {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
};
const masked = (key: string | undefined) => (key ? `${key.slice(0, 3)}***${key.slice(-4)}` : '');
const jsonBody = (request: RecordedRequest): Record<string, unknown> | undefined => {
  try {
    const parsed: unknown = JSON.parse(request.body);
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

const openAiStyleList = (ids: string[], ownedBy: string) => ({
  object: 'list',
  data: ids.map((id) => ({ id, object: 'model', created: 1_721_172_741, owned_by: ownedBy })),
});
const openAiStyleError = (status: number, message: string, type: string, code: string | null): Reply => ({
  status,
  body: { error: { message, type, param: null, code } },
});
const googleError = (status: number, message: string, grpcStatus: string, reason?: string): Reply => ({
  status,
  body: {
    error: {
      code: status,
      message,
      status: grpcStatus,
      ...(reason
        ? { details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'googleapis.com' }] }
        : {}),
    },
  },
});

const ENDPOINTS: Record<FakeProvider, Endpoint> = {
  openai: {
    method: 'GET',
    path: '/v1/models',
    keyOf: bearerOf,
    ok: () => openAiStyleList(['gpt-4o-mini', 'gpt-4.1'], 'system'),
    badKey: (key) =>
      key
        ? openAiStyleError(
            401,
            `Incorrect API key provided: ${masked(key)}. You can find your API key at ` +
              'https://platform.openai.com/account/api-keys.',
            'invalid_request_error',
            'invalid_api_key',
          )
        : openAiStyleError(401, "You didn't provide an API key.", 'invalid_request_error', null),
    rateLimited: {
      ...openAiStyleError(429, 'You exceeded your current quota.', 'insufficient_quota', 'insufficient_quota'),
      headers: { 'retry-after': '20' },
    },
    serverError: openAiStyleError(500, 'The server had an error while processing your request.', 'server_error', null),
  },
  anthropic: {
    method: 'GET',
    path: '/v1/models',
    keyOf: headerOf('x-api-key'),
    precheck: (request) =>
      request.headers['anthropic-version']
        ? undefined
        : {
            status: 400,
            body: {
              type: 'error',
              error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' },
            },
          },
    ok: () => ({
      data: [
        {
          type: 'model',
          id: 'claude-3-5-haiku-20241022',
          display_name: 'Claude Haiku 3.5',
          created_at: '2024-10-22T00:00:00Z',
        },
      ],
      has_more: false,
      first_id: 'claude-3-5-haiku-20241022',
      last_id: 'claude-3-5-haiku-20241022',
    }),
    badKey: () => ({
      status: 401,
      body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
    }),
    rateLimited: {
      status: 429,
      body: {
        type: 'error',
        error: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit.' },
      },
      headers: { 'retry-after': '30' },
    },
    serverError: {
      status: 500,
      body: { type: 'error', error: { type: 'api_error', message: 'Internal server error' } },
    },
  },
  google: {
    method: 'GET',
    path: '/v1beta/models',
    keyOf: (request) => request.query.get('key') ?? headerOf('x-goog-api-key')(request),
    ok: () => ({
      models: [
        {
          name: 'models/gemini-2.0-flash',
          displayName: 'Gemini 2.0 Flash',
          supportedGenerationMethods: ['generateContent'],
        },
      ],
      nextPageToken: 'Ch1tb2RlbHMvZ2VtaW5pLTIuMC1mbGFzaA==',
    }),
    badKey: (key) =>
      key
        ? googleError(400, 'API key not valid. Please pass a valid API key.', 'INVALID_ARGUMENT', 'API_KEY_INVALID')
        : googleError(
            403,
            "Method doesn't allow unregistered callers (callers without established identity). Please use API " +
              'Key or other form of API consumer identity to call this API.',
            'PERMISSION_DENIED',
          ),
    rateLimited: googleError(429, 'Resource has been exhausted (e.g. check quota).', 'RESOURCE_EXHAUSTED'),
    serverError: googleError(500, 'An internal error has occurred.', 'INTERNAL'),
  },
  mistral: {
    method: 'GET',
    path: '/v1/models',
    keyOf: bearerOf,
    ok: () => openAiStyleList(['mistral-small-latest', 'mistral-large-latest'], 'mistralai'),
    badKey: () => ({ status: 401, body: { message: 'Unauthorized', request_id: randomUUID().replace(/-/g, '') } }),
    rateLimited: { status: 429, body: { message: 'Requests rate limit exceeded' } },
    serverError: {
      status: 500,
      body: { object: 'error', message: 'Internal server error', type: 'internal_server_error' },
    },
  },
  groq: {
    method: 'GET',
    path: '/openai/v1/models',
    keyOf: bearerOf,
    ok: () => openAiStyleList(['llama-3.3-70b-versatile', 'llama-3.1-8b-instant'], 'Meta'),
    badKey: () => openAiStyleError(401, 'Invalid API Key', 'invalid_request_error', 'invalid_api_key'),
    rateLimited: {
      ...openAiStyleError(429, 'Rate limit reached for requests', 'requests', 'rate_limit_exceeded'),
      headers: { 'retry-after': '2' },
    },
    serverError: openAiStyleError(500, 'Internal Server Error', 'internal_server_error', null),
  },
  tavily: {
    method: 'POST',
    path: '/search',
    // Tavily reads `Authorization: Bearer tvly-...`, or the older `api_key` field of the body.
    keyOf: (request) => bearerOf(request) ?? (jsonBody(request)?.api_key as string | undefined),
    precheck: (request) =>
      typeof jsonBody(request)?.query === 'string'
        ? undefined
        : { status: 400, body: { detail: { error: 'Query is missing.' } } },
    ok: (request) => ({
      query: jsonBody(request)?.query,
      answer: null,
      images: [],
      results: [
        { title: 'Example', url: 'https://example.com/', content: 'Example result', score: 0.91, raw_content: null },
      ],
      response_time: 0.42,
    }),
    badKey: () => ({ status: 401, body: { detail: { error: 'Unauthorized: missing or invalid API key.' } } }),
    rateLimited: {
      status: 429,
      body: { detail: { error: 'Your request has been blocked due to excessive requests.' } },
    },
    serverError: { status: 500, body: { detail: { error: 'Internal Server Error' } } },
  },
  serper: {
    method: 'POST',
    path: '/search',
    keyOf: headerOf('x-api-key'),
    precheck: (request) =>
      typeof jsonBody(request)?.q === 'string'
        ? undefined
        : { status: 400, body: { message: 'Missing query parameter', statusCode: 400 } },
    ok: (request) => ({
      searchParameters: { q: jsonBody(request)?.q, type: 'search', engine: 'google' },
      organic: [{ title: 'Example', link: 'https://example.com/', snippet: 'Example result', position: 1 }],
      credits: 1,
    }),
    badKey: () => ({ status: 403, body: { message: 'Unauthorized.', statusCode: 403 } }),
    rateLimited: { status: 429, body: { message: 'Too many requests', statusCode: 429 } },
    serverError: { status: 500, body: { message: 'Internal server error', statusCode: 500 } },
  },
};

export class AiProvidersFake {
  readonly requests: RecordedRequest[] = [];
  private readonly keys = new Map<FakeProvider, Set<string>>();
  private readonly failures = new Map<FakeProvider, FailureMode>();
  private readonly hanging = new Set<ServerResponse>();
  private server?: Server;
  url = '';

  /** Makes `key` valid for `provider`. */
  addKey(provider: FakeProvider, key: string): this {
    (this.keys.get(provider) ?? this.keys.set(provider, new Set()).get(provider)!).add(key);
    return this;
  }

  /** From now on every request to `provider` fails this way (until `recover`). */
  fail(provider: FakeProvider, mode: FailureMode): this {
    this.failures.set(provider, mode);
    return this;
  }

  recover(provider?: FakeProvider): this {
    if (provider) this.failures.delete(provider);
    else this.failures.clear();
    return this;
  }

  /** PROVIDER_API_URLS for the app under test: every provider pointed at this server. */
  apiUrls(): Record<FakeProvider, string> {
    return Object.fromEntries(FAKE_PROVIDERS.map((p) => [p, `${this.url}/${p}`])) as Record<FakeProvider, string>;
  }

  async start(): Promise<this> {
    this.server = createFakeServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', this.url);
    const [, prefix, ...rest] = url.pathname.split('/');
    const provider = FAKE_PROVIDERS.find((p) => p === prefix);
    if (!provider) return send(res, { status: 404, body: { error: 'unknown provider prefix' } });
    const request: RecordedRequest = {
      provider,
      method: req.method ?? 'GET',
      path: `/${rest.join('/')}`,
      query: url.searchParams,
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    this.requests.push(request);
    const endpoint = ENDPOINTS[provider];
    if (request.path !== endpoint.path) return send(res, { status: 404, body: { error: 'Not found' } });
    if (request.method !== endpoint.method) return send(res, { status: 405, body: { error: 'Method not allowed' } });

    const failure = this.failures.get(provider);
    if (failure === 'hang') {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    if (failure === 'rate_limited') return send(res, endpoint.rateLimited);
    if (failure === 'server_error') return send(res, endpoint.serverError);
    const problem = endpoint.precheck?.(request);
    if (problem) return send(res, problem);
    const key = endpoint.keyOf(request);
    if (failure === 'unauthorized' || !key || !this.keys.get(provider)?.has(key))
      return send(res, endpoint.badKey(key));
    return send(res, { status: 200, body: endpoint.ok(request) });
  }
}

function send(res: ServerResponse, reply: Reply): void {
  const payload = JSON.stringify(reply.body);
  res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
  res.end(payload);
}

export async function startAiProvidersFake(): Promise<AiProvidersFake> {
  return new AiProvidersFake().start();
}
