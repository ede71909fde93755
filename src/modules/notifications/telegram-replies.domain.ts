// What the bot answers to a message that linked nothing, and how many such answers it gives (decision 921).
// Anyone can write to the bot, and every answer spends the bot's own Telegram budget (about 30 messages a
// second for the whole bot, shared with the notifications; one a second per chat): the answers are bounded
// per chat, per poll and per minute, so strangers writing to it cannot spend what the users' notices need.

/** What became of a message to the bot: for the log, the answer and the tests. */
export type LinkOutcome = 'linked' | 'not a link' | 'not a private chat' | 'unknown code' | 'expired' | 'no room';

/** The one sentence a refused link or a stray message gets; none for a link made (the outbox tells it). */
export function replyOf(outcome: LinkOutcome, chatType: string | undefined): string | undefined {
  switch (outcome) {
    case 'unknown code':
    case 'expired':
      // One answer for both: which codes existed is nobody's business.
      return 'This link has expired or was already used: ask for a new one on your notifications page.';
    case 'no room':
      return 'This chat was not linked: your account has the most channels it may have; remove one and ask for a new link.';
    case 'not a private chat':
      return 'Links work only in a private chat with this bot: open the link from your notifications page.';
    case 'not a link':
      // In a group the bot speaks only when spoken to with a link.
      return chatType === 'private'
        ? 'To get notifications here, open the link from your notifications page and press Start.'
        : undefined;
    case 'linked':
      return undefined;
  }
}

export interface ReplyBounds {
  /** Answers to one chat: one per this many ms. */
  perChatMs: number;
  /** Answers to the updates of one getUpdates answer (up to 100 updates, each answer a request in turn). */
  perPoll: number;
  /** Answers a minute, all chats together. */
  perMinute: number;
}

export const REPLY_BOUNDS: ReplyBounds = { perChatMs: 60_000, perPoll: 3, perMinute: 20 };

/**
 * Whether an answer may be sent, counting it when it may. Holds at most one entry per chat answered in the
 * last `perChatMs`, so no more than `perMinute` times that many minutes of chats: strangers cannot grow it.
 */
export function createReplyBudget(bounds: ReplyBounds = REPLY_BOUNDS) {
  const lastToChat = new Map<string, number>();
  let poll: number | undefined;
  let inPoll = 0;
  let windowStart = Number.NEGATIVE_INFINITY;
  let inWindow = 0;

  return {
    take(chatId: string, pollId: number, nowMs: number): boolean {
      if (pollId !== poll) {
        poll = pollId;
        inPoll = 0;
      }
      if (nowMs - windowStart >= 60_000) {
        windowStart = nowMs;
        inWindow = 0;
        for (const [chat, at] of lastToChat) if (nowMs - at >= bounds.perChatMs) lastToChat.delete(chat);
      }
      const last = lastToChat.get(chatId);
      if (last !== undefined && nowMs - last < bounds.perChatMs) return false;
      if (inPoll >= bounds.perPoll || inWindow >= bounds.perMinute) return false;
      inPoll++;
      inWindow++;
      lastToChat.set(chatId, nowMs);
      return true;
    },
  };
}

export type ReplyBudget = ReturnType<typeof createReplyBudget>;
