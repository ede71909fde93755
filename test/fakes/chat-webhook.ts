// A loopback incoming-webhook receiver that behaves like Slack (200 `ok`, plain-text error codes,
// 429 with Retry-After) or Discord (204, JSON errors, 429 with `retry_after` in the body). It checks
// payloads against the real limits, so a message our renderer gets wrong is refused as it would be.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { type EndlessTally, writeEndless } from './endless-body.ts';
import { createFakeServer } from './loopback-server.ts';

type ChatFlavor = 'slack' | 'discord';
/** `endless`: the status with a body without end (endless-body.ts), as a broken proxy might send. */
export type CannedResponse =
  | { status: number; body?: string | object; headers?: Record<string, string>; endless?: boolean }
  | 'hang';

export interface ChatReceiver {
  url: string;
  /** Every request, in order, with its path (a user's webhooks may share one host) and parsed JSON body. */
  received: { path: string; headers: IncomingHttpHeaders; body: Record<string, unknown> }[];
  /** The bodies answered with a 2xx: the messages that made it into the channel. */
  accepted: Record<string, unknown>[];
  /** What the endless answers wrote (CannedResponse `endless`). */
  endless: EndlessTally;
  /** Answers for the next requests, before the default behaviour resumes. */
  respondNext(...responses: CannedResponse[]): void;
  close(): Promise<void>;
}

type Check = string | undefined;

interface SlackText {
  type?: string;
  text?: string;
}
interface SlackBlock {
  type?: string;
  text?: SlackText;
  fields?: SlackText[];
  elements?: { type?: string; url?: string }[];
}
interface Embed {
  title?: string;
  description?: string;
  url?: string;
  timestamp?: string;
  color?: number;
  footer?: { text?: string };
  fields?: { name?: string; value?: string }[];
}

const tooLong = (text: string | undefined, max: number) => !text || text.length > max;

function checkSlack(body: Record<string, unknown>): Check {
  const blocks = body.blocks as SlackBlock[] | undefined;
  if (typeof body.text !== 'string' && !blocks) return 'no_text';
  if (!blocks) return undefined;
  if (!Array.isArray(blocks) || blocks.length > 50) return 'invalid_blocks';
  for (const block of blocks) {
    switch (block.type) {
      case 'header':
        if (block.text?.type !== 'plain_text' || tooLong(block.text.text, 150)) return 'invalid_blocks';
        break;
      case 'section':
        if (!block.text && !block.fields) return 'invalid_blocks';
        if (block.text && tooLong(block.text.text, 3000)) return 'invalid_blocks';
        if (block.fields && (block.fields.length > 10 || block.fields.some((f) => tooLong(f.text, 2000))))
          return 'invalid_blocks';
        break;
      case 'actions':
        if (
          (block.elements ?? []).some(
            (e) => e.type === 'button' && (!/^https?:\/\//.test(e.url ?? '') || tooLong(e.url, 3000)),
          )
        )
          return 'invalid_blocks';
        break;
      case 'context':
        if (!block.elements || block.elements.length === 0 || block.elements.length > 10) return 'invalid_blocks';
        break;
      default:
        return 'invalid_blocks';
    }
  }
  return undefined;
}

function checkDiscord(body: Record<string, unknown>): Check {
  const embeds = (body.embeds ?? []) as Embed[];
  const content = body.content as string | undefined;
  if (!content && embeds.length === 0) return 'Cannot send an empty message';
  if (content && content.length > 2000) return 'content: Must be 2000 or fewer in length.';
  if (embeds.length > 10) return 'embeds: Must be 10 or fewer in length.';
  for (const embed of embeds) {
    const fields = embed.fields ?? [];
    if (embed.title && embed.title.length > 256) return 'embeds.0.title: Must be 256 or fewer in length.';
    if (embed.description && embed.description.length > 4096)
      return 'embeds.0.description: Must be 4096 or fewer in length.';
    if (fields.length > 25) return 'embeds.0.fields: Must be 25 or fewer in length.';
    if (fields.some((f) => tooLong(f.name, 256) || tooLong(f.value, 1024))) return 'embeds.0.fields: Invalid field.';
    if (embed.footer?.text && embed.footer.text.length > 2048)
      return 'embeds.0.footer.text: Must be 2048 or fewer in length.';
    if (embed.url !== undefined && !/^https?:\/\//.test(embed.url)) return 'embeds.0.url: Not a well formed URL.';
    if (embed.timestamp !== undefined && Number.isNaN(Date.parse(embed.timestamp)))
      return 'embeds.0.timestamp: Could not parse.';
    if (!Number.isInteger(embed.color) || embed.color! < 0 || embed.color! > 0xffffff)
      return 'embeds.0.color: Invalid color.';
    const total =
      (embed.title?.length ?? 0) +
      (embed.description?.length ?? 0) +
      (embed.footer?.text?.length ?? 0) +
      fields.reduce((n, f) => n + (f.name?.length ?? 0) + (f.value?.length ?? 0), 0);
    if (total > 6000) return 'embeds: Embed size exceeds maximum size of 6000';
  }
  return undefined;
}

export async function startChatReceiver(options: { flavor: ChatFlavor }): Promise<ChatReceiver> {
  const { flavor } = options;
  const received: ChatReceiver['received'] = [];
  const accepted: ChatReceiver['accepted'] = [];
  const queue: CannedResponse[] = [];
  const endless: EndlessTally = { sent: 0, completed: 0 };
  const sockets = new Set<Socket>();

  const reply = (res: ServerResponse, status: number, body?: string | object, headers: Record<string, string> = {}) => {
    const json = body !== undefined && typeof body === 'object';
    res.writeHead(status, { 'content-type': json ? 'application/json' : 'text/plain; charset=utf-8', ...headers });
    res.end(body === undefined ? undefined : json ? JSON.stringify(body) : body);
  };
  const refuse = (res: ServerResponse, reason: string) =>
    flavor === 'slack'
      ? reply(res, 400, reason)
      : reply(res, 400, { message: 'Invalid Form Body', code: 50035, errors: { reason } });

  const server = createFakeServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST') return reply(res, 405, 'method_not_allowed');
      let body: Record<string, unknown>;
      try {
        if (!String(req.headers['content-type']).startsWith('application/json')) throw new Error('not json');
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return refuse(res, 'invalid_payload');
      }
      received.push({ path: req.url ?? '', headers: req.headers, body });
      const canned = queue.shift();
      if (canned === 'hang') return; // never answers; the socket is destroyed at close
      if (canned) {
        if (canned.status >= 200 && canned.status < 300) accepted.push(body);
        if (canned.endless) return void writeEndless(res, canned.status, endless);
        return reply(res, canned.status, canned.body, canned.headers);
      }
      const problem = flavor === 'slack' ? checkSlack(body) : checkDiscord(body);
      if (problem) return refuse(res, problem);
      accepted.push(body);
      return flavor === 'slack' ? reply(res, 200, 'ok') : reply(res, 204);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const path = flavor === 'slack' ? '/services/T000/B000/XXXX' : '/api/webhooks/1234/token';

  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    accepted,
    endless,
    respondNext(...responses) {
      queue.push(...responses);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
