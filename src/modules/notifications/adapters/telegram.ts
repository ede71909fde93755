// Telegram messages through the Bot API (PROTOCOLS B13): POST <api>/bot<token>/sendMessage. The token
// is the operator's (TELEGRAM_BOT_TOKEN) and never appears in a note or error. A 429 says how long to
// wait in `parameters.retry_after`; a 400 is final, and a 403 (the user blocked the bot) or a 400 "chat not
// found" says the chat takes no more messages: the sender unlinks it (decision 861).
import { DeliveryAborted, PermanentFailure, RateLimited, RetryLater } from '../../../platform/outbox/outbox.ts';

/** Telegram will not deliver to this chat again (403: the bot blocked or kicked; 400: chat not found). */
export class ChatUnreachable extends PermanentFailure {
  override name = 'ChatUnreachable';
}

export interface TelegramChannel {
  readonly configured: boolean;
  send(chatId: string, text: string, signal?: AbortSignal): Promise<string>;
}

/** Telegram refuses a message longer than this. */
export const TELEGRAM_TEXT_LIMIT = 4096;

/**
 * The text cut to the limit at a code point boundary (decision 690): a cut between the two halves of a
 * surrogate pair (an emoji) sends a lone surrogate, which is not UTF-8 and Telegram answers 400.
 */
export function telegramText(text: string): string {
  if (text.length <= TELEGRAM_TEXT_LIMIT) return text;
  const last = text.charCodeAt(TELEGRAM_TEXT_LIMIT - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? TELEGRAM_TEXT_LIMIT - 1 : TELEGRAM_TEXT_LIMIT);
}

export function createTelegramChannel(options: {
  token: string | undefined;
  apiUrl: string;
  timeoutMs: number;
  fetch: typeof fetch;
}): TelegramChannel {
  const { token, timeoutMs } = options;
  const endpoint = `${options.apiUrl.replace(/\/+$/, '')}/bot${token}/sendMessage`;
  return {
    configured: Boolean(token),
    async send(chatId, text, signal) {
      if (!token) throw new PermanentFailure('not sent: TELEGRAM_BOT_TOKEN is not set');
      let status: number;
      let body: { ok?: boolean; description?: string; parameters?: { retry_after?: number } };
      try {
        const response = await options.fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            chat_id: chatId,
            text: telegramText(text),
            disable_web_page_preview: true,
          }),
          signal: signal ? AbortSignal.any([AbortSignal.timeout(timeoutMs), signal]) : AbortSignal.timeout(timeoutMs),
        });
        status = response.status;
        body = (await response.json().catch(() => ({}))) as typeof body;
      } catch (error) {
        if (signal?.aborted) throw new DeliveryAborted('telegram send stopped: the outbox worker is stopping');
        throw new RetryLater(`telegram unreachable: ${(error as Error).name}`);
      }
      if (status === 200 && body.ok) return 'delivered: telegram accepted the message';
      const reason = `telegram answered HTTP ${status}: ${String(body.description ?? 'no description').slice(0, 200)}`;
      if (status === 429) {
        const seconds = Number(body.parameters?.retry_after);
        throw new RateLimited(
          reason,
          Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 3600) * 1000 : 30_000,
        );
      }
      if (status >= 500) throw new RetryLater(reason);
      if (status === 403 || (status === 400 && /chat not found/i.test(String(body.description))))
        throw new ChatUnreachable(reason);
      throw new PermanentFailure(reason);
    },
  };
}
