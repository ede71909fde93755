// Posts to a webhook URL a user gave (Slack- or Discord-style), without letting that URL reach into our
// network: the host is resolved through the injected lookup, every address must be public (unless
// NOTIFY_ALLOW_PRIVATE_URLS), and the connection goes to the address that was checked, so a name that
// changes its answer between check and connect (DNS rebinding) gains nothing. TLS still verifies the
// certificate against the host name. Redirects are not followed: a 3xx is a refusal.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { Clock } from '../../../platform/clock.ts';
import type { HostLookup, ResolvedAddress } from '../../../platform/host-lookup.ts';
import { DeliveryAborted, PermanentFailure, RateLimited, RetryLater } from '../../../platform/outbox/outbox.ts';
import { hostOf, privateAmong, urlProblem } from '../preferences.domain.ts';
import { retryAfterMs } from './chat-channel.ts';

export interface UserWebhookSender {
  /** Answers the note kept on the outbox row; throws RetryLater, RateLimited or PermanentFailure. */
  post(url: string, payload: object, signal?: AbortSignal): Promise<string>;
  /** Why this URL may not be saved (checked by resolving it now); undefined when it may. */
  refusal(url: string): Promise<string | undefined>;
}

const MAX_ANSWER_BYTES = 4096;

export function createUserWebhookSender(options: {
  lookup: HostLookup;
  allowPrivate: boolean;
  timeoutMs: number;
  clock: Clock;
}): UserWebhookSender {
  const { lookup, allowPrivate, timeoutMs, clock } = options;

  /** The addresses to connect to, or why none may be. */
  async function resolve(url: URL): Promise<ResolvedAddress | string> {
    const host = hostOf(url);
    let addresses: ResolvedAddress[];
    if (isIP(host) !== 0) addresses = [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
    else {
      try {
        addresses = await lookup(host);
      } catch (error) {
        throw new RetryLater(`webhook host ${host} did not resolve: ${(error as { code?: string }).code ?? 'error'}`);
      }
    }
    if (addresses.length === 0) throw new RetryLater(`webhook host ${host} has no address`);
    const bad = privateAmong(addresses, allowPrivate);
    if (bad !== undefined) return `the URL's host resolves to a private, loopback or link-local address (${bad})`;
    return addresses[0]!;
  }

  function send(url: URL, target: ResolvedAddress, body: string, signal?: AbortSignal) {
    return new Promise<{ status: number; headers: Headers; text: string }>((resolve, reject) => {
      const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
        {
          host: target.address,
          family: target.family,
          port: url.port || undefined,
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          servername: isIP(hostOf(url)) === 0 ? hostOf(url) : undefined,
          headers: { host: url.host, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          signal: signal ? AbortSignal.any([AbortSignal.timeout(timeoutMs), signal]) : AbortSignal.timeout(timeoutMs),
        },
        (response: IncomingMessage) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            if (size < MAX_ANSWER_BYTES) chunks.push(chunk);
            size += chunk.length;
          });
          response.on('end', () => {
            const headers = new Headers();
            for (const [name, value] of Object.entries(response.headers))
              if (typeof value === 'string') headers.set(name, value);
            resolve({ status: response.statusCode ?? 0, headers, text: Buffer.concat(chunks).toString('utf8') });
          });
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  }

  return {
    async refusal(text) {
      const problem = urlProblem(text, allowPrivate);
      if (problem) return problem;
      try {
        const target = await resolve(new URL(text));
        return typeof target === 'string' ? target : undefined;
      } catch {
        return "the URL's host does not resolve";
      }
    },

    async post(text, payload, signal) {
      const problem = urlProblem(text, allowPrivate);
      if (problem) throw new PermanentFailure(`not sent: ${problem}`);
      const url = new URL(text);
      const target = await resolve(url);
      if (typeof target === 'string') throw new PermanentFailure(`not sent: ${target}`);
      let answer: { status: number; headers: Headers; text: string };
      try {
        answer = await send(url, target, JSON.stringify(payload), signal);
      } catch (error) {
        if (signal?.aborted) throw new DeliveryAborted('webhook post stopped: the outbox worker is stopping');
        const code = (error as { code?: string; name?: string }).code ?? (error as Error).name;
        throw new RetryLater(`webhook unreachable: ${code}`);
      }
      const { status } = answer;
      if (status >= 200 && status < 300) return `delivered: webhook answered HTTP ${status}`;
      const reason = `webhook answered HTTP ${status}${answer.text.trim() ? ` ${answer.text.trim().slice(0, 200)}` : ''}`;
      if (status >= 300 && status < 400) throw new PermanentFailure(`not followed: ${reason} (redirects are refused)`);
      if (status === 429) throw new RateLimited(reason, retryAfterMs(answer.headers, answer.text, clock.now()));
      if (status >= 500 || status === 408) throw new RetryLater(reason);
      throw new PermanentFailure(reason);
    },
  };
}
