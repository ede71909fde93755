// Server-Sent Events over the raw Node response (WHATWG HTML, "Server-sent events"): one registry per
// process holds every open stream, enforces the connection limits, writes the `: ping` comment to a
// stream that has been silent (from one timer), drops a subscriber whose unread output passes the
// bound, and ends every stream at shutdown.
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { Type, type TSchema } from 'typebox';
import { clientKey } from './client-address.ts';
import { rateLimited, unavailable } from './errors.ts';
import { SECURITY_HEADERS } from './http-conventions.ts';

interface SseSettings {
  maxConnections: number;
  maxPerUser: number;
  /** Public streams (no account) one client address (an IPv6 /64) may hold on this instance. */
  maxPerAddress: number;
  maxBufferBytes: number;
  pingMs: number;
  retryMs: number;
}

/** Why the server ended a stream; sent as the data of the final `end` event. */
export type EndReason = (typeof END_REASONS)[number];

export interface SseConnection {
  readonly id: number;
  /** The user holding it (account streams), for the per-user limit. */
  readonly userId: string | null;
  readonly closed: boolean;
  /**
   * Writes ready-made SSE text, or a frame shared by many subscribers (the same bytes for each); false
   * (and the stream ended) when the subscriber has fallen behind.
   */
  write(data: string | SseFrame): boolean;
  /** Sends the final `end` event and ends the response. */
  end(reason: EndReason, detail?: string): void;
  /** Runs once the stream is over, whoever ended it. */
  onClose(listener: () => void): void;
}

const END_REASONS = ['shutdown', 'slow_consumer', 'suspended', 'revoked'] as const;

/** The data of the final `end` event, for the OpenAPI document. */
export const StreamEnd = Type.Object(
  {
    reason: Type.Unsafe<EndReason>({
      type: 'string',
      enum: [...END_REASONS],
      description:
        '`shutdown`: the instance is stopping (reconnect); `slow_consumer`: the client read too slowly ' +
        '(reconnect); `suspended`/`revoked`: the account or session ended (account stream).',
    }),
    detail: Type.String({ description: 'One sentence for people.' }),
  },
  { title: 'StreamEnd', description: 'Event `end`: the last event before the server closes the stream.' },
);

/**
 * One SSE message as OpenAPI 3.1 can say it: the `event:` name, the `id:` when there is one,
 * and the JSON of its `data:` line.
 */
export function sseMessage(
  title: string,
  event: string,
  data: TSchema,
  options: { id?: boolean; description?: string } = {},
) {
  return Type.Object(
    {
      ...(options.id
        ? { id: Type.String({ description: "The `id:` field: the event's sequence number, for `Last-Event-ID`." }) }
        : {}),
      event: Type.Literal(event, { description: 'The `event:` field.' }),
      data,
    },
    { title, description: options.description ?? `An SSE message \`event: ${event}\`; \`data:\` holds the JSON.` },
  );
}

/** One SSE event as text: `data` is one JSON line, so it never holds a newline. */
export function sseEvent(event: string, data: unknown, id?: string): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * SSE text encoded once for every subscriber that gets it: the bytes, and the same bytes as one
 * HTTP/1.1 chunk (size line, data, CRLF), so a fan-out writes one ready Buffer per socket and
 * allocates nothing per subscriber.
 */
export interface SseFrame {
  readonly bytes: Buffer;
  readonly chunk: Buffer;
}

export function sseFrame(text: string): SseFrame {
  const length = Buffer.byteLength(text);
  const head = `${length.toString(16)}\r\n`;
  const chunk = Buffer.allocUnsafe(head.length + length + 2);
  chunk.write(head, 0, 'latin1');
  chunk.write(text, head.length, 'utf8');
  chunk.write('\r\n', head.length + length, 'latin1');
  return { bytes: chunk.subarray(head.length, head.length + length), chunk };
}

/** The ping comment, encoded once for the life of the process. */
const PING = sseFrame(': ping\n\n');

/**
 * The pinger looks at the streams this many times per ping period and pings those that have written
 * nothing since its turn a whole period ago (silent for more than three slices, at most four): no stream
 * goes longer than the period without a byte, a stream that is sending events gets no ping at all, and
 * the pings of streams that fell silent at different times go out in different turns, not in one burst
 * (decision 285).
 */
const PING_SLICES = 4;

const END_DETAILS: Record<EndReason, string> = {
  shutdown: 'The server is shutting down; reconnect to continue.',
  slow_consumer: 'The client did not read the stream fast enough; reconnect to continue.',
  suspended: 'The account is no longer active.',
  revoked: 'The session has been revoked or has expired.',
};

/**
 * The share of STREAM_MAX_CONNECTIONS that public streams (prices, no account) may never take: the
 * room signed-in users' account streams keep however many anonymous clients connect (decision 115).
 */
const ACCOUNT_STREAM_RESERVE = 0.2;

export function createSseRegistry(settings: SseSettings, logger: Logger) {
  const open = new Set<Connection>();
  /** Open streams per holder: `user:<id>` for account streams, `client:<address>` for public ones. */
  const perHolder = new Map<string, number>();
  const publicLimit = Math.max(1, Math.floor(settings.maxConnections * (1 - ACCOUNT_STREAM_RESERVE)));
  let publicOpen = 0;
  let nextId = 1;
  let closing = false;
  let pinger: NodeJS.Timeout | undefined;
  /** The pinger's turns so far: a coarse clock, so that a write stamps an integer instead of reading the time. */
  let turn = 0;

  class Connection implements SseConnection {
    readonly id = nextId++;
    closed = false;
    private readonly listeners: (() => void)[] = [];
    readonly raw: FastifyReply['raw'];
    /** The pinger's turn of the last write: a stream written since needs no ping. */
    lastWrite = turn;
    /** The socket, once frames may go straight to it (see `direct`); it stays so for the stream's life. */
    private socket: Socket | null = null;
    constructor(
      readonly userId: string | null,
      private readonly holder: string,
      reply: FastifyReply,
    ) {
      this.raw = reply.raw;
    }

    write(data: string | SseFrame): boolean {
      // The fan-out's path, once per subscriber per batch (decision 540): a shared frame straight to
      // a socket that keeps up. Everything else (text, the first frame, a subscriber past the bound,
      // a closed stream) takes the full path below, which decides the same way.
      const socket = this.socket;
      if (
        socket !== null &&
        typeof data !== 'string' &&
        !this.closed &&
        socket.writableLength <= settings.maxBufferBytes &&
        !socket.destroyed
      ) {
        this.lastWrite = turn;
        socket.write(data.chunk);
        return true;
      }
      return this.writeChecked(data);
    }

    private writeChecked(data: string | SseFrame): boolean {
      if (this.closed) return false;
      const socket = this.socket ?? this.direct();
      // What the subscriber has not taken: the socket's alone once frames go straight to it.
      const buffered = socket === null ? this.raw.writableLength : socket.writableLength;
      // Checked before writing: what a subscriber has not taken stays under the bound plus one write.
      // A shared frame queued on a stalled socket is a reference to the one Buffer, not a copy.
      if (buffered > settings.maxBufferBytes) {
        logger.info({ stream: this.id, buffered }, 'stream subscriber fell behind; dropped');
        this.end('slow_consumer');
        return false;
      }
      this.lastWrite = turn;
      if (typeof data === 'string') this.raw.write(data);
      else if (socket !== null && !socket.destroyed) socket.write(data.chunk);
      else this.raw.write(data.bytes);
      return true;
    }

    /**
     * The socket, when a frame can go to it as its ready chunk: the headers are out, the response is
     * chunked and holds nothing of its own (everything it wrote is on the socket, in order). Node's
     * response would write the same bytes, in four socket writes and a deferred flush per subscriber
     * (decision 224); otherwise (a pipelined response still queued) the frame goes through it. Once
     * true it stays true: the response writes through to its socket from then on (it is the socket's
     * only response: `connection: close`), so the answer is kept and not asked on every write.
     */
    private direct(): Socket | null {
      const raw = this.raw;
      const socket = raw.socket;
      if (
        raw.headersSent &&
        raw.chunkedEncoding &&
        socket !== null &&
        !socket.destroyed &&
        raw.writableLength === socket.writableLength
      )
        this.socket = socket;
      return this.socket;
    }

    end(reason: EndReason, detail = END_DETAILS[reason]): void {
      if (this.closed) return;
      const raw = this.raw;
      raw.end(sseEvent('end', { reason, detail }));
      this.finish();
      // A subscriber that reads nothing never lets the end out: its socket goes after a grace period.
      if (raw.writableLength > 0) setTimeout(() => raw.destroy(), 2_000).unref();
    }

    onClose(listener: () => void): void {
      if (this.closed) listener();
      else this.listeners.push(listener);
    }

    finish(): void {
      if (this.closed) return;
      this.closed = true;
      open.delete(this);
      if (!this.userId) publicOpen -= 1;
      const left = (perHolder.get(this.holder) ?? 1) - 1;
      if (left > 0) perHolder.set(this.holder, left);
      else perHolder.delete(this.holder);
      if (open.size === 0) {
        clearInterval(pinger);
        pinger = undefined;
      }
      for (const listener of this.listeners.splice(0)) {
        try {
          listener();
        } catch (error) {
          logger.error({ err: error }, 'stream close listener failed');
        }
      }
    }
  }

  /** The holder a new stream counts for and what it holds now; throws when a limit is reached. */
  function admission(request: FastifyRequest, userId: string | null): { holder: string; held: number } {
    const holder = userId ? `user:${userId}` : `client:${clientKey(request.ip) ?? 'unknown'}`;
    if (closing) throw unavailable('The server is shutting down', { headers: { 'retry-after': '1' } });
    if (open.size >= settings.maxConnections || (!userId && publicOpen >= publicLimit)) {
      throw unavailable('Too many open streams on this server; try again shortly', { headers: { 'retry-after': '5' } });
    }
    const held = perHolder.get(holder) ?? 0;
    if (userId && held >= settings.maxPerUser)
      throw rateLimited(5, `At most ${settings.maxPerUser} open streams per user; close one first`);
    if (!userId && held >= settings.maxPerAddress) {
      throw rateLimited(5, `At most ${settings.maxPerAddress} open price streams per client address; close one first`);
    }
    return { holder, held };
  }

  /** Pings the streams that have written nothing for (nearly) a ping period. */
  function ping(): void {
    turn += 1;
    for (const connection of open) if (turn - connection.lastWrite >= PING_SLICES) connection.write(PING);
  }

  return {
    /** Streams open now, and those of one user. */
    count: (userId?: string) => (userId === undefined ? open.size : (perHolder.get(`user:${userId}`) ?? 0)),

    /**
     * Checks the limits, then takes the response over from Fastify and sends the headers and the
     * `retry:` field. An account stream (`userId`) may use every slot and is limited per user (429);
     * a public stream may use all but the account streams' reserve and is limited per client address
     * (429). A full instance answers 503. Call after any check that may still answer an error, before
     * anything is written.
     */
    /**
     * Throws the answer a stream would get now if it is over a limit, so a route can refuse before
     * doing any work for it (a snapshot, a venue call).
     */
    admit(request: FastifyRequest, options: { userId?: string } = {}): void {
      admission(request, options.userId ?? null);
    },

    open(request: FastifyRequest, reply: FastifyReply, options: { userId?: string } = {}): SseConnection {
      const userId = options.userId ?? null;
      const { holder, held } = admission(request, userId);
      const connection = new Connection(userId, holder, reply);
      open.add(connection);
      if (!userId) publicOpen += 1;
      perHolder.set(holder, held + 1);
      reply.hijack();
      const raw = reply.raw;
      const socket = request.raw.socket;
      // The client may have left while the route awaited its checks (authentication, the snapshot): the
      // close event is then over, and a stream opened on the dead socket would hold its slot, its
      // subscriptions and its ping for the life of the process (decision 820). It is over at once.
      if (raw.destroyed || socket === null || socket.destroyed) {
        connection.finish();
        return connection;
      }
      socket.setNoDelay(true);
      raw.writeHead(200, {
        ...SECURITY_HEADERS,
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        // Proxies (nginx) must pass events on as they come, not buffer them.
        'x-accel-buffering': 'no',
        // A stream holds its connection to the end; afterwards the client reconnects on a new one.
        connection: 'close',
        'x-request-id': request.id,
      });
      raw.write(`retry: ${settings.retryMs}\n\n`);
      raw.on('close', () => connection.finish());
      raw.on('error', () => connection.finish());
      pinger ??= setInterval(ping, settings.pingMs / PING_SLICES);
      pinger.unref();
      return connection;
    },

    /**
     * Ends every stream with `end` (reason `shutdown`) and refuses new ones; resolves once each end is
     * written out (or its socket destroyed after 2 s), so the server's close finds the connections idle.
     */
    async close(): Promise<void> {
      closing = true;
      clearInterval(pinger);
      await Promise.all(
        [...open].map((connection) => {
          const raw = connection.raw;
          const done = new Promise<void>((resolve) => {
            if (raw.writableFinished || raw.destroyed) return resolve();
            raw.once('finish', () => resolve());
            raw.once('close', () => resolve());
          });
          connection.end('shutdown');
          return done;
        }),
      );
    },
  };
}

export type SseRegistry = ReturnType<typeof createSseRegistry>;
