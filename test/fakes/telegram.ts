// A loopback Telegram Bot API (PROTOCOLS B13) for the sendMessage method: `POST /bot<token>/sendMessage`
// with JSON `{chat_id, text, ...}` answers `{"ok": true, "result": {message_id, chat, date, text}}`.
// It fails as Telegram does: an unknown token is 401 Unauthorized, a chat that never started the bot is
// 400 "chat not found", an empty or over-long text or one with a lone surrogate is 400, and more than
// one message a second to a chat is 429 with `parameters.retry_after`.
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
  /** Answers for the next requests, before the default behaviour resumes. */
  respondNext(...responses: TelegramCanned[]): void;
  close(): Promise<void>;
}

const TEXT_LIMIT = 4096;

export async function startTelegramBot(options: { token?: string } = {}): Promise<TelegramBot> {
  const token = options.token ?? '123456:TEST-bot-token_abcdefghijklmnopqrstuv';
  const chats = new Set<string>();
  const sent: TelegramBot['sent'] = [];
  const paths: string[] = [];
  const queue: TelegramCanned[] = [];
  const lastSent = new Map<string, number>();
  const sockets = new Set<Socket>();
  let messageId = 1;

  const reply = (res: ServerResponse, status: number, body: object) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const fail = (res: ServerResponse, status: number, description: string, extra: object = {}) =>
    reply(res, status, { ok: false, error_code: status, description, ...extra });

  const server = createFakeServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      paths.push(req.url ?? '');
      const match = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
      if (!match || match[1] !== token) return fail(res, 401, 'Unauthorized');
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
      const now = Date.now();
      const last = lastSent.get(chatId);
      if (last !== undefined && now - last < 1000) {
        const retryAfter = Math.ceil((1000 - (now - last)) / 1000);
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
    respondNext: (...responses) => queue.push(...responses),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
