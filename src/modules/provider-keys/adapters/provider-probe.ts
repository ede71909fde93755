// Asks a provider whether a key works. Every failure (refused key, rate limit, provider error,
// timeout, unreachable host) becomes an answer, never an exception: a key test reports, it does not fail.
import { readBoundedBody } from '../../../platform/http/bounded-body.ts';
import type { Provider } from '../provider-keys.domain.ts';
import { PROVIDER_ENDPOINTS } from './provider-endpoints.ts';

export interface ProbeOutcome {
  isValid: boolean;
  /** A sentence for the admin; never contains the key or the provider's raw answer. */
  errorMessage: string | null;
  /** HTTP status when the provider answered. */
  status: number | null;
}

export interface ProviderProbe {
  check(provider: Provider, apiKey: string): Promise<ProbeOutcome>;
}

/** The provider's answer body is read up to this size (enough for any error document). */
const MAX_BODY_BYTES = 64 * 1024;

export function createHttpProviderProbe(deps: {
  fetch: typeof fetch;
  apiUrls: Readonly<Record<string, string>>;
  timeoutMs: number;
}): ProviderProbe {
  const { apiUrls, timeoutMs } = deps;

  return {
    async check(provider, apiKey) {
      const endpoint = PROVIDER_ENDPOINTS[provider];
      const request = endpoint.request(apiKey);
      const base = (apiUrls[provider] ?? endpoint.baseUrl).replace(/\/+$/, '');
      const signal = AbortSignal.timeout(timeoutMs);
      let status: number;
      let body: string;
      try {
        const response = await deps.fetch(`${base}${request.path}`, {
          method: request.method,
          headers: { accept: 'application/json', ...request.headers },
          body: request.body === undefined ? undefined : JSON.stringify(request.body),
          signal,
          redirect: 'error',
        });
        status = response.status;
        body = (await readBoundedBody(response, MAX_BODY_BYTES)).text;
      } catch (error) {
        return { isValid: false, status: null, errorMessage: describeFailure(error, signal, timeoutMs) };
      }
      return interpret(status, body, endpoint.rejectsKey);
    },
  };
}

function interpret(status: number, body: string, rejectsKey?: (status: number, body: string) => boolean): ProbeOutcome {
  if (status >= 200 && status < 300) return { isValid: true, status, errorMessage: null };
  if (status === 401 || status === 403 || rejectsKey?.(status, body)) {
    return { isValid: false, status, errorMessage: `The provider rejected the key (HTTP ${status})` };
  }
  if (status === 429) {
    return {
      isValid: false,
      status,
      errorMessage:
        'The provider is rate limiting or out of quota (HTTP 429); the key could not be confirmed, try again later',
    };
  }
  if (status >= 500) {
    return {
      isValid: false,
      status,
      errorMessage: `The provider failed (HTTP ${status}); the key could not be confirmed, try again later`,
    };
  }
  return { isValid: false, status, errorMessage: `The provider refused the check request (HTTP ${status})` };
}

function describeFailure(error: unknown, signal: AbortSignal, timeoutMs: number): string {
  if (signal.aborted) return `The provider did not answer within ${timeoutMs} ms`;
  const cause = (error as { cause?: { code?: string } })?.cause;
  const code = typeof cause?.code === 'string' ? ` (${cause.code})` : '';
  return `The provider could not be reached${code}`;
}
