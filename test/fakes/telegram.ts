// A loopback Telegram Bot API (PROTOCOLS B13) for sendMessage and getUpdates. `POST /bot<token>/sendMessage`
// with JSON `{chat_id, text, ...}` answers `{"ok": true, "result": {message_id, chat, date, text}}`.
// It fails as Telegram does: an unknown token is 401 Unauthorized, a chat that never started the bot is
// 400 "chat not found", an empty or over-long text or one with a lone surrogate is 400, and more than
// one message a second to a chat is 429 with `parameters.retry_after`.
// `POST /bot<token>/getUpdates` with `{offset, timeout, allowed_updates}` is a long poll: it answers the
// updates from `offset` on at once, or as soon as one is sent (`sendUpdate`, a user writing to the bot),
// or `[]` after `timeout` seconds. An offset confirms (forgets) every update before it. Two polls at
// once are 409 Conflict for the older one, as Telegram answers ("terminated by other getUpdates request").
// A user may block the bot (`blockChat`): sendMessage to that chat is then 403 "Forbidden: bot was blocked
// by the user" until they write to the bot again. While a webhook is set (`setWebhook`), every getUpdates
// is 409 "Conflict: can't use getUpdates method while webhook is active".
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createFakeServer } from './loopback-server.ts';

export type TelegramCanned = { status: number; body: object } | 'hang';

export interface TelegramBot {
  /** The base URL to put in TELEGRAM_API_URL. */
  url: string;
  token: string;
  /** Messages Telegram accepted, in order. */
  sent: { chatId: string; text: string }[];
  /** Every request's path, to check no other URL was called. */
  paths: string[];
  /** A chat that started the bot: messages to it are delivered. */
  startChat(chatId: string): void;
  /** The user blocks the bot: messages to the chat are refused (403) until they write to the bot again. */
  blockChat(chatId: string): void;
  /** Sets (or, with undefined, deletes) the bot's webhook, as setWebhook and deleteWebhook do. */
  setWebhook(url: string | undefined): void;
  /** Answers for the next sendMessage requests, before the default behaviour resumes. */
  respondNext(...responses: TelegramCanned[]): void;
  /** Answers for the next getUpdates requests, before the default behaviour resumes. */
  respondNextUpdates(...responses: TelegramCanned[]): void;
  /**
   * A user writes `text` to the bot in chat `chatId` (private unless `chatType` says otherwise): the chat
   * has started the bot, and the update is delivered to the poll waiting or the next one. Answers its id.
   */
  sendUpdate(chatId: string, text: string, chatType?: 'private' | 'group'): number;
  /** getUpdates requests, in order, with the body they carried. */
  polls: { offset?: number; timeout?: number; allowed_updates?: string[] }[];
  /** Updates not yet confirmed by an offset past them. */
  pending(): number;
  close(): Promise<void>;
}

const TEXT_LIMIT = 4096;

export async function startTelegramBot(
  options: {
    token?: string /** Telegram's one message a second per chat; 0 lifts it. */;
    perChatIntervalMs?: number;
  } = {},
): Promise<TelegramBot> {
  const interval = options.perChatIntervalMs ?? 1000;
  const token = options.token ?? '123456:TEST-bot-token_abcdefghijklmnopqrstuv';
  const chats = new Set<string>();
  const blocked = new Set<string>();
  let webhook: string | undefined;
  const sent: TelegramBot['sent'] = [];
  const paths: string[] = [];
  const queue: TelegramCanned[] = [];
  const updatesQueue: TelegramCanned[] = [];
  const polls: TelegramBot['polls'] = [];
  type Update = { update_id: number; message: object };
  let updates: Update[] = [];
  let nextUpdateId = 500_000_001;
  /** The poll that waits for an update: answered (with what is then pending) when one comes or it ends. */
  let waiting: { res: ServerResponse; offset: number; timer: NodeJS.Timeout } | undefined;
  const lastSent = new Map<string, number>();
  const sockets = new Set<Socket>();
  let messageId = 1;

  const reply = (res: ServerResponse, status: number, body: object) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const fail = (res: ServerResponse, status: number, description: string, extra: object = {}) =>
    reply(res, status, { ok: false, error_code: status, description, ...extra });

  const from = (offset: number) => updates.filter((u) => u.update_id >= offset);
  const answerWaiting = () => {
    if (!waiting) return;
    const { res, offset, timer } = waiting;
    waiting = undefined;
    clearTimeout(timer);
    reply(res, 200, { ok: true, result: from(offset) });
  };

  function getUpdates(res: ServerResponse, text: string) {
    let body: { offset?: number; timeout?: number; allowed_updates?: string[] };
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      return fail(res, 400, "Bad Request: can't parse JSON");
    }
    polls.push(body);
    const canned = updatesQueue.shift();
    if (canned === 'hang') return;
    if (canned) return reply(res, canned.status, canned.body);
    if (webhook)
      return fail(
        res,
        409,
        "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      );
    const offset = Number(body.offset ?? 0);
    // An offset confirms every update before it: Telegram forgets them.
    if (offset > 0) updates = updates.filter((u) => u.update_id >= offset);
    if (waiting) {
      const older = waiting;
      waiting = undefined;
      clearTimeout(older.timer);
      fail(
        older.res,
        409,
        'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
      );
    }
    if (from(offset).length > 0) return reply(res, 200, { ok: true, result: from(offset) });
    const seconds = Math.max(0, Number(body.timeout ?? 0));
    if (seconds === 0) return reply(res, 200, { ok: true, result: [] });
    const timer = setTimeout(answerWaiting, seconds * 1000);
    waiting = { res, offset, timer };
    res.on('close', () => {
      if (waiting?.res === res) {
        clearTimeout(waiting.timer);
        waiting = undefined;
      }
    });
  }

  const server = createFakeServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      paths.push(req.url ?? '');
      const match = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
      if (!match || match[1] !== token) return fail(res, 401, 'Unauthorized');
      if (match[2] === 'getUpdates') return getUpdates(res, Buffer.concat(chunks).toString('utf8'));
      if (match[2] !== 'sendMessage') return fail(res, 404, 'Not Found');
      const canned = queue.shift();
      if (canned === 'hang') return;
      if (canned) return reply(res, canned.status, canned.body);
      let body: { chat_id?: unknown; text?: unknown };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return fail(res, 400, "Bad Request: can't parse JSON");
      }
      const chatId = String(body.chat_id ?? '');
      const text = typeof body.text === 'string' ? body.text : '';
      if (!chatId) return fail(res, 400, 'Bad Request: chat_id is empty');
      if (!text.trim()) return fail(res, 400, 'Bad Request: message text is empty');
      if (text.length > TEXT_LIMIT) return fail(res, 400, 'Bad Request: message is too long');
      // JSON may escape a lone surrogate (\ud83d); it is not UTF-8, and Telegram refuses it.
      if (/\p{Cs}/u.test(text)) return fail(res, 400, 'Bad Request: strings must be encoded in UTF-8');
      if (!chats.has(chatId)) return fail(res, 400, 'Bad Request: chat not found');
      if (blocked.has(chatId)) return fail(res, 403, 'Forbidden: bot was blocked by the user');
      const now = Date.now();
      const last = lastSent.get(chatId);
      if (last !== undefined && now - last < interval) {
        const retryAfter = Math.ceil((interval - (now - last)) / 1000);
        return fail(res, 429, `Too Many Requests: retry after ${retryAfter}`, {
          parameters: { retry_after: retryAfter },
        });
      }
      lastSent.set(chatId, now);
      sent.push({ chatId, text });
      reply(res, 200, {
        ok: true,
        result: {
          message_id: messageId++,
          chat: { id: Number(chatId), type: 'private' },
          date: Math.floor(now / 1000),
          text,
        },
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    sent,
    paths,
    startChat: (chatId) => chats.add(chatId),
    blockChat: (chatId) => blocked.add(chatId),
    setWebhook: (url) => {
      webhook = url;
    },
    respondNext: (...responses) => queue.push(...responses),
    respondNextUpdates: (...responses) => updatesQueue.push(...responses),
    polls,
    pending: () => updates.length,
    sendUpdate(chatId, text, chatType = 'private') {
      chats.add(chatId);
      blocked.delete(chatId);
      const id = nextUpdateId++;
      const chat = { id: Number(chatId), type: chatType, ...(chatType === 'private' ? { first_name: 'Ada' } : {}) };
      updates.push({
        update_id: id,
        message: {
          message_id: messageId++,
          from: { id: Number(chatId), is_bot: false, first_name: 'Ada' },
          chat,
          date: Math.floor(Date.now() / 1000),
          text,
          ...(text.startsWith('/')
            ? { entities: [{ offset: 0, length: text.split(' ')[0]!.length, type: 'bot_command' }] }
            : {}),
        },
      });
      answerWaiting();
      return id;
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (waiting) clearTimeout(waiting.timer);
        waiting = undefined;
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
