// Linking a Telegram chat to its user (decision 860). Anyone can type a chat id, so the bot writes only to
// a chat proven the user's: they ask for a link (`https://t.me/<bot>?start=<code>`), open it in Telegram and
// press Start, and Telegram hands the bot `/start <code>` from that chat. The code is random, lives ten
// minutes, works once and is stored as its SHA-256 only; each user has at most one (asking again replaces it).
import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/database.ts';
import { unavailable } from '../../platform/http/errors.ts';
import type { TelegramChannel } from './adapters/telegram.ts';
import type { TelegramUpdate } from './adapters/telegram-updates.ts';
import type { ChatMessage } from './messages.ts';
import { enqueue, NOTIFY_KIND } from './notifications.outbox.ts';
import type { PreferencesService } from './preferences.service.ts';
import type { TelegramLinkRepository } from './telegram-link.repository.ts';
import { createReplyBudget, type LinkOutcome, replyOf } from './telegram-replies.domain.ts';

/** How long a link works once asked for. */
export const LINK_CODE_TTL_MS = 10 * 60_000;

/**
 * A refused link's outcome reaches the log at most once in this interval, with how many there were since
 * its last line (decision 1043): anyone can send the bot `/start <anything>` as fast as Telegram lets them.
 */
export const REFUSED_LINK_LOG_INTERVAL_MS = 60_000;

export interface LinkOffer {
  code: string;
  url: string;
  expiresAt: Date;
}

export type { LinkOutcome } from './telegram-replies.domain.ts';

/** The message the chat gets once linked, through the outbox like every notification. */
export const LINKED_MESSAGE: ChatMessage = {
  source: 'notifications',
  title: 'Telegram linked',
  text: 'This chat is linked to your account: the notifications you chose will arrive here.',
  level: 'success',
};

const hashOf = (code: string) => createHash('sha256').update(code).digest('hex');

/** `/start <code>` (or `/start@bot <code>`), as Telegram sends a deep link's Start; the code as the link carried it. */
export function startCode(text: string | undefined): string | undefined {
  return /^\/start(?:@\w+)?\s+([A-Za-z0-9_-]{1,64})\s*$/.exec(text ?? '')?.[1];
}

export function createTelegramLinkService(deps: {
  db: Db;
  repo: TelegramLinkRepository;
  preferences: Pick<PreferencesService, 'linkTelegram'>;
  /** Unset when TELEGRAM_BOT_TOKEN or TELEGRAM_BOT_USERNAME is: nothing can be linked. */
  botUsername: string | undefined;
  /** Answers a message that linked nothing, within `REPLY_BOUNDS` (decision 921). */
  telegram: Pick<TelegramChannel, 'send'>;
  clock: Clock;
  logger: Pick<Logger, 'info' | 'warn'>;
}) {
  const { db, repo, preferences, botUsername, telegram, clock, logger } = deps;
  const replies = createReplyBudget();
  /** Per outcome, when its last line was logged and how many refused links came since. */
  const refusedLog = new Map<LinkOutcome, { loggedAt: number; more: number }>();

  function noteRefused(outcome: LinkOutcome): void {
    const now = clock.now().getTime();
    const last = refusedLog.get(outcome);
    if (last && now - last.loggedAt < REFUSED_LINK_LOG_INTERVAL_MS) {
      last.more += 1;
      return;
    }
    refusedLog.set(outcome, { loggedAt: now, more: 0 });
    if (!last?.more) logger.warn({ outcome }, 'a telegram link was not used');
    else
      logger.warn(
        { outcome, refused: last.more + 1, since: new Date(last.loggedAt).toISOString() },
        'telegram links were not used',
      );
  }

  /**
   * One sentence back to a chat whose message linked nothing, when the bounds allow: per chat, per poll
   * and per minute, since anyone can write to the bot. Not retried, and a failure only logged: the
   * update is confirmed all the same.
   */
  async function answer(update: TelegramUpdate, outcome: LinkOutcome, poll: number, signal?: AbortSignal) {
    const chat = update.message?.chat;
    const text = replyOf(outcome, chat?.type);
    const chatId = String(chat?.id ?? '');
    if (!text || !/^-?\d{1,20}$/.test(chatId)) return;
    if (!replies.take(chatId, poll, clock.now().getTime())) return;
    // The reader's stop cuts an answer in flight, as it cuts the poll.
    await telegram.send(chatId, text, signal).catch((error: unknown) => {
      if (!signal?.aborted) logger.warn({ reason: (error as Error).message }, 'a telegram answer was not sent');
    });
  }

  async function link(update: TelegramUpdate, code: string): Promise<LinkOutcome> {
    const chat = update.message?.chat;
    // Only the user's own chat with the bot: in a group, whoever pressed Start would link everyone's chat.
    if (chat?.type !== 'private' || !/^\d{1,20}$/.test(String(chat.id ?? ''))) return 'not a private chat';
    const chatId = String(chat.id);
    return db.transaction(async (tx): Promise<LinkOutcome> => {
      const found = await repo.takeCode(hashOf(code), tx);
      if (!found) return 'unknown code';
      const now = clock.now();
      if (found.expiresAt.getTime() <= now.getTime()) return 'expired';
      const channelId = await preferences.linkTelegram(found.userId, chatId, now, tx);
      if (!channelId) return 'no room';
      await enqueue(
        {
          kind: NOTIFY_KIND,
          payload: { userId: found.userId, channelId, message: { ...LINKED_MESSAGE } },
          dedupeKey: `notify:linked:${update.update_id}:${channelId}`,
        },
        now,
        tx,
      );
      return 'linked';
    });
  }

  return {
    /** A new link for the user; their earlier one stops working. */
    async offer(userId: string): Promise<LinkOffer> {
      if (!botUsername)
        throw unavailable(
          'Telegram notifications are not configured on this server (TELEGRAM_BOT_TOKEN and TELEGRAM_BOT_USERNAME)',
        );
      const code = randomBytes(24).toString('base64url');
      const expiresAt = new Date(clock.now().getTime() + LINK_CODE_TTL_MS);
      await repo.saveCode(userId, hashOf(code), expiresAt);
      return { code, url: `https://t.me/${botUsername}?start=${code}`, expiresAt };
    },

    /**
     * A message to the bot, from the `poll`-th getUpdates answer: a link's Start binds its chat to the
     * code's user, once; anything else gets one sentence back, within bounds (decision 921), unless the
     * reader stops (`signal`) first.
     */
    async onUpdate(update: TelegramUpdate, poll = 0, signal?: AbortSignal): Promise<LinkOutcome> {
      const code = startCode(update.message?.text);
      // Anything else written to the bot is not ours to read: it is only told how to link.
      const outcome = code ? await link(update, code) : 'not a link';
      if (outcome === 'linked') logger.info({ outcome }, 'a telegram chat was linked');
      else if (code) noteRefused(outcome);
      await answer(update, outcome, poll, signal);
      return outcome;
    },
  };
}

export type TelegramLinkService = ReturnType<typeof createTelegramLinkService>;
