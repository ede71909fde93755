// Where chat notifications go: a Slack- or Discord-style incoming webhook, or nowhere (recorded in
// the outbox only) when CHAT_WEBHOOK_URL is unset. Failures are sorted for the outbox worker:
// worth retrying (429, 5xx, timeouts) or not (the receiver refused the message or is gone). After a
// 429 nothing is posted until the receiver's wait is over: the other rows of the batch would only
// earn 429s of their own and prolong the limit.
import type { ChatFormat } from '../../../config/config.ts';
import type { Clock } from '../../../platform/clock.ts';
import { DeliveryAborted, PermanentFailure, RateLimited, RetryLater } from '../../../platform/outbox/outbox.ts';
import type { ChatMessage } from '../messages.ts';
import { toDiscord } from '../chat/discord-message.ts';
import { toSlack } from '../chat/slack-message.ts';
import { retryAfterMs as retryAfterHeaderMs } from '../../../platform/http/retry-after.ts';
import { readBoundedBody } from '../../../platform/http/bounded-body.ts';

export interface ChatChannel {
  readonly configured: boolean;
  readonly format: ChatFormat;
  /** Delivers the message and answers the note kept on the outbox row; throws RetryLater or PermanentFailure. */
  /** `signal` (the outbox worker stopping) aborts the post; the row is retried later. */
  post(message: ChatMessage, signal?: AbortSignal): Promise<string>;
}

const CHAT_RECORDED_ONLY = 'recorded only: CHAT_WEBHOOK_URL is not set';

export function createRecordOnlyChatChannel(format: ChatFormat): ChatChannel {
  return { configured: false, format, post: async () => CHAT_RECORDED_ONLY };
}

/** A 429 without a usable Retry-After still waits this long: Slack allows about one message a second. */
const DEFAULT_RETRY_AFTER_MS = 30_000;
/**
 * A receiver's answer is read up to this (decision 1042): its first 200 characters and a 429's
 * `retry_after` are all we use, and an answer without end must not be held, nor outlast the timeout.
 */
export const CHAT_MAX_ANSWER_BYTES = 64 * 1024;
const MAX_RETRY_AFTER_MS = 60 * 60 * 1000;

export function createWebhookChatChannel(options: {
  url: string;
  format: ChatFormat;
  timeoutMs: number;
  fetch: typeof fetch;
  clock: Clock;
}): ChatChannel {
  const { url, format, timeoutMs, clock } = options;
  // When the receiver's last Retry-After ends (epoch ms, by the clock); per process, as the limit
  // is per webhook and one process posts its rows one after the other.
  let waitUntil = 0;
  return {
    configured: true,
    format,
    async post(message, signal) {
      const left = waitUntil - clock.now().getTime();
      if (left > 0)
        throw new RateLimited(
          `not sent: the chat webhook asked us to wait (HTTP 429), ${Math.ceil(left / 1000)} s left`,
          left,
        );
      const payload = format === 'discord' ? toDiscord(message, clock.now()) : toSlack(message);
      let status: number;
      let headers: Headers;
      let body: string;
      try {
        const response = await options.fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(payload),
          signal: signal ? AbortSignal.any([AbortSignal.timeout(timeoutMs), signal]) : AbortSignal.timeout(timeoutMs),
        });
        status = response.status;
        headers = response.headers;
        body = (await readBoundedBody(response, CHAT_MAX_ANSWER_BYTES)).text;
      } catch (error) {
        if (signal?.aborted) throw new DeliveryAborted('chat post stopped: the outbox worker is stopping');
        const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
        throw new RetryLater(
          timedOut
            ? `chat webhook did not answer within ${timeoutMs} ms`
            : `chat webhook unreachable: ${describe(error)}`,
        );
      }
      if (status >= 200 && status < 300) return `delivered: ${format} webhook answered HTTP ${status}`;
      const reason = `chat webhook answered HTTP ${status}${body.trim() ? ` ${body.trim().slice(0, 200)}` : ''}`;
      if (status === 429) {
        const wait = retryAfterMs(headers, body, clock.now());
        waitUntil = clock.now().getTime() + wait;
        throw new RateLimited(reason, wait);
      }
      if (status >= 500 || status === 408) throw new RetryLater(reason);
      // 400 invalid_payload, 403 invalid_token, 404 no_service, 410 channel_is_archived: retrying cannot help.
      throw new PermanentFailure(reason);
    },
  };
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

/**
 * How long a 429 asks us to wait. Discord puts `retry_after` (seconds, a float) in the JSON body;
 * one old API version sent milliseconds, so a value over 5 minutes is read as milliseconds. Slack
 * and Discord both send `Retry-After` in seconds (or an HTTP date). Clamped to 1 s..1 h.
 */
export function retryAfterMs(headers: Headers, body: string, now: Date): number {
  const clamp = (ms: number) => Math.min(MAX_RETRY_AFTER_MS, Math.max(1000, Math.ceil(ms)));
  try {
    const parsed = JSON.parse(body) as { retry_after?: unknown };
    const seconds = Number(parsed.retry_after);
    if (Number.isFinite(seconds) && seconds > 0) return clamp(seconds > 300 ? seconds : seconds * 1000);
  } catch {
    // Slack answers plain text; fall through to the header.
  }
  const header = retryAfterHeaderMs(headers, now.getTime());
  return header === undefined ? DEFAULT_RETRY_AFTER_MS : clamp(header);
}
