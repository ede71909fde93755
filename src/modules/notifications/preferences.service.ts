// Users' notification preferences (docs/decisions/222): where they are told (mail, Telegram, their own
// webhook) and of what. Telegram chats and webhook URLs are sealed at rest, bound to their user and
// channel; a webhook URL is checked for where it leads when saved (and again at every send). A Telegram
// chat comes only from the bot's link opened in it (decision 860): a chat id typed in is kept only when it
// names a chat already there.
import { randomUUID } from 'node:crypto';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db, DbExecutor } from '../../platform/db/database.ts';
import { validationFailed, type ValidationIssue } from '../../platform/http/errors.ts';
import type { UserWebhookSender } from './adapters/user-webhook.ts';
import type { TelegramChannel } from './adapters/telegram.ts';
import {
  DEFAULT_EVENTS,
  shownUrl,
  shownWebhooks,
  type NotifyEvent,
  type ShownWebhook,
  type StoredChannel,
} from './preferences.domain.ts';
import type { PreferencesRepository, StoredPreferences } from './preferences.repository.ts';
import { MAX_CHANNELS, type Channel, type PreferencesBody } from './preferences.schemas.ts';

/** Where a channel's sealed value lives: its user's row, and the channel within it. */
export const channelSealedAt = (userId: string, channelId: string) => ({
  table: 'notification_preferences',
  column: 'channels',
  row: `${userId}:${channelId}`,
});

export const DEFAULT_PREFERENCES: StoredPreferences = {
  channels: [{ id: 'email', type: 'email' }],
  events: [...DEFAULT_EVENTS],
};

/** A channel as the owner sees it: the chat id, a webhook URL by its origin only. */
export interface ShownChannel {
  type: Channel['type'];
  chatId?: string;
  /** Telegram: whether the chat was proven the user's by the bot's link; an unlinked chat is told nothing. */
  linked?: boolean;
  url?: string;
  format?: 'slack' | 'discord';
}

export interface ShownPreferences {
  channels: ShownChannel[];
  events: NotifyEvent[];
}

export function createPreferencesService(deps: {
  db: Db;
  repo: PreferencesRepository;
  secretBox: Pick<SecretBox, 'seal' | 'open'>;
  telegram: Pick<TelegramChannel, 'configured'>;
  webhooks: Pick<UserWebhookSender, 'refusal'>;
  clock: Clock;
}) {
  const { db, repo, secretBox, telegram, webhooks, clock } = deps;

  /**
   * The users whose preferences were asked for in this turn of the event loop, each with its askers: read
   * together, in one statement when they are several (the account events of orders answered together,
   * each read for its notice: decision 760).
   */
  let asked: Map<string, { resolve(p: StoredPreferences): void; reject(e: unknown): void }[]> | undefined;

  async function readAsked(): Promise<void> {
    const batch = asked!;
    asked = undefined;
    try {
      const ids = [...batch.keys()];
      const found = ids.length === 1 ? new Map([[ids[0]!, await repo.of(ids[0]!)]]) : await repo.ofEach(ids);
      for (const [userId, askers] of batch)
        for (const asker of askers) asker.resolve(found.get(userId) ?? DEFAULT_PREFERENCES);
    } catch (error) {
      for (const askers of batch.values()) for (const asker of askers) asker.reject(error);
    }
  }

  const stored = (userId: string) =>
    new Promise<StoredPreferences>((resolve, reject) => {
      if (!asked) {
        asked = new Map();
        queueMicrotask(() => void readAsked());
      }
      const askers = asked.get(userId);
      if (askers) askers.push({ resolve, reject });
      else asked.set(userId, [{ resolve, reject }]);
    });

  const chatOf = (userId: string, channel: { id: string; sealed: string }) =>
    secretBox.open(channel.sealed, channelSealedAt(userId, channel.id));

  function show(userId: string, preferences: StoredPreferences): ShownPreferences {
    return {
      events: preferences.events,
      channels: preferences.channels.map((channel): ShownChannel => {
        if (channel.type === 'email') return { type: 'email' };
        if (channel.type === 'telegram')
          return { type: 'telegram', chatId: chatOf(userId, channel), linked: channel.proven === true };
        return { type: 'webhook', url: channel.shown, format: channel.format };
      }),
    };
  }

  /**
   * The channel as stored, or the issue that keeps it out; an unchanged channel keeps its id and seal. `shown`:
   * the saved webhook a URL sent back as shown stands for, if it is one.
   */
  async function toStored(
    userId: string,
    channel: Channel,
    index: number,
    before: StoredChannel[],
    shown: ShownWebhook | undefined,
  ): Promise<StoredChannel | ValidationIssue> {
    const issue = (field: string, type: string, msg: string, input: unknown): ValidationIssue => ({
      type,
      loc: ['body', 'channels', index, field],
      msg,
      input,
    });
    if (channel.type === 'email') return { id: 'email', type: 'email' };
    if (channel.type === 'telegram') {
      if (!telegram.configured)
        return issue(
          'type',
          'value_error',
          'Value error, Telegram notifications are not configured on this server',
          'telegram',
        );
      const chatId = channel.chat_id?.trim();
      if (!chatId) return issue('chat_id', 'missing', 'Field required', null);
      if (!/^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{4,31})$/.test(chatId))
        return issue('chat_id', 'value_error', 'Value error, a Telegram chat id (digits) or @channel name', chatId);
      // Sent back as shown, a chat already there is kept as it is (linked or not); a new one comes only
      // from the bot's link, opened in that chat.
      const kept = before.find((c) => c.type === 'telegram' && chatOf(userId, c) === chatId);
      if (kept) return kept;
      return issue(
        'chat_id',
        'value_error',
        'Value error, a Telegram chat is added by opening the link of POST /api/notifications/telegram/link in it',
        chatId,
      );
    }
    const format = channel.format ?? 'slack';
    const url = channel.url?.trim();
    if (!url) return issue('url', 'missing', 'Field required', null);
    if (shown) {
      if ('kept' in shown) return { ...shown.kept, format };
      // A shown URL is the origin alone, never the receiver's token: it may be echoed.
      if ('ambiguous' in shown)
        return issue(
          'url',
          'value_error',
          `Value error, ${shown.ambiguous} webhooks on ${url} are saved and shown alike, so fewer of them sent back ` +
            'cannot say which are kept: send back each of them as shown, or the full URL of each one to keep',
          url,
        );
      return issue(
        'url',
        'value_error',
        `Value error, no saved webhook on ${url} is left for this shown URL: a new webhook is sent by its full URL`,
        url,
      );
    }
    const refusal = await webhooks.refusal(url);
    // The URL itself is never echoed: its path is the receiver's token.
    if (refusal) return issue('url', 'value_error', `Value error, ${refusal}`, shownOrNothing(url));
    const id = randomUUID();
    return {
      id,
      type: 'webhook',
      format,
      sealed: secretBox.seal(url, channelSealedAt(userId, id)),
      shown: shownUrl(url),
    };
  }

  return {
    /** What is stored, unopened: for the sender. */
    stored,

    async view(userId: string): Promise<ShownPreferences> {
      return show(userId, await stored(userId));
    },

    /**
     * A provider's first link claimed the account from whoever registered its address (decision 790): the
     * Telegram chats and webhooks are theirs, and would go on telling them of the owner's fills, so the
     * account's choices go in the link's transaction and the defaults (mail to the now-verified address)
     * apply. A notice already queued for a removed channel is skipped when its turn comes.
     */
    async resetOnClaim(userId: string, _now: Date, tx: DbExecutor): Promise<undefined> {
      await repo.remove(userId, tx);
      return undefined;
    },

    /**
     * The chat the user opened the bot's link in becomes one of their channels, proven (decision 860): the
     * same chat already there (typed in before) is marked so, keeping its place; otherwise it is added, with
     * the defaults' channels and events when the user had chosen none. Answers the channel's id, or
     * undefined when the user already has as many channels as allowed. In the caller's transaction, the
     * preferences' row locked (decision 861).
     */
    async linkTelegram(userId: string, chatId: string, now: Date, tx: DbExecutor): Promise<string | undefined> {
      const current = await repo.lockOf(userId, DEFAULT_PREFERENCES, now, tx);
      const same = current.channels.find((c) => c.type === 'telegram' && chatOf(userId, c) === chatId);
      let channels: StoredChannel[];
      let id: string;
      if (same) {
        id = same.id;
        channels = current.channels.map((c) => (c === same && c.type === 'telegram' ? { ...c, proven: true } : c));
      } else {
        if (current.channels.length >= MAX_CHANNELS) return undefined;
        id = randomUUID();
        const sealed = secretBox.seal(chatId, channelSealedAt(userId, id));
        channels = [...current.channels, { id, type: 'telegram', sealed, proven: true }];
      }
      await repo.save(userId, { channels, events: current.events }, now, tx);
      return id;
    },

    /**
     * Telegram will not take the chat's messages any more (the user blocked the bot, or the chat is gone):
     * the channel stays, not linked, and is told nothing until the user opens a link in it again
     * (decision 861). Answers whether it was linked.
     */
    async unlinkTelegram(userId: string, channelId: string): Promise<boolean> {
      return db.transaction(async (tx) => {
        const now = clock.now();
        const current = await repo.lockOf(userId, DEFAULT_PREFERENCES, now, tx);
        const linked = current.channels.find((c) => c.id === channelId && c.type === 'telegram' && c.proven);
        if (!linked) return false;
        const channels = current.channels.map((c): StoredChannel => {
          if (c !== linked || c.type !== 'telegram') return c;
          const { proven: _proven, ...unproven } = c;
          return unproven;
        });
        await repo.save(userId, { channels, events: current.events }, now, tx);
        return true;
      });
    },

    async replace(userId: string, body: PreferencesBody): Promise<ShownPreferences> {
      // Checked against what is stored now, outside the lock (a webhook's name is resolved), then saved
      // over what is stored when the row is locked (decision 861).
      const before = (await repo.of(userId))?.channels ?? [];
      const shown = shownWebhooks(
        body.channels.map((channel) => (channel.type === 'webhook' ? channel.url?.trim() : undefined)),
        before,
      );
      const results = await Promise.all(
        body.channels.map((channel, i) => toStored(userId, channel, i, before, shown.get(i))),
      );
      const issues = results.filter((r): r is ValidationIssue => 'loc' in r);
      if (issues.length > 0) throw validationFailed(issues);
      const channels = results as StoredChannel[];
      if (channels.filter((c) => c.type === 'email').length > 1)
        throw validationFailed([
          { type: 'value_error', loc: ['body', 'channels'], msg: 'Value error, email may be listed once', input: null },
        ]);
      // Each webhook sent back as shown keeps one of its own (shownWebhooks): only a chat can come twice.
      if (new Set(channels.map((c) => c.id)).size < channels.length)
        throw validationFailed([
          {
            type: 'value_error',
            loc: ['body', 'channels'],
            msg: 'Value error, a Telegram chat may be listed once',
            input: null,
          },
        ]);
      const preferences = await db.transaction(async (tx) => {
        const now = clock.now();
        const current = await repo.lockOf(userId, DEFAULT_PREFERENCES, now, tx);
        // A chat kept takes its state as it is now: linked, or unlinked, since it was read.
        const saved = {
          channels: channels.map((c) =>
            c.type === 'telegram' ? (current.channels.find((n) => n.id === c.id) ?? c) : c,
          ),
          events: body.events,
        };
        await repo.save(userId, saved, now, tx);
        return saved;
      });
      return show(userId, preferences);
    },
  };
}

function shownOrNothing(url: string): string {
  try {
    return shownUrl(url);
  } catch {
    return '';
  }
}

export type PreferencesService = ReturnType<typeof createPreferencesService>;
