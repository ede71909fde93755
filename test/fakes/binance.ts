// A loopback Binance spot REST server that speaks the real protocol (Binance's spot API documentation): string
// numbers, `{code,msg}` errors, X-MBX-USED-WEIGHT-1M headers, 429/418 with Retry-After, HMAC-SHA256
// signed endpoints with X-MBX-APIKEY and recvWindow, exchangeInfo filters. Request weight is counted
// per client IP and minute: above the limit an IP gets 429 with Retry-After (the rest of the minute),
// and an IP that calls again before that has passed is banned with 418 (Retry-After the ban's
// length), as Binance does. Failures injected with `fail()` are answers only: they start no ban.
// `variant: 'us'` answers
// as binance.us (MIN_NOTIONAL filters; no SAPI endpoints unless a test adds them). A key that may not
// read is refused with -2015 on signed endpoints; myTrades answers the most recent trades unless
// startTime or fromId says where to start.
// Extend it with `route()` for endpoints a test needs; inject failures with `fail()` and `delay()`.
// Its spot endpoints are in binance-routes.ts; Binance's error and row shapes, which tests seed
// accounts with, in binance-shapes.ts.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { marketSymbols, type FakeSymbol } from './binance-market-data.ts';
import { registerAccountRoutes, registerMarketRoutes } from './binance-routes.ts';
import { binanceError, INVALID_KEY } from './binance-shapes.ts';
import { type BodyForm, writeBody } from './garbled-answers.ts';
import { createFakeServer } from './loopback-server.ts';

export interface FakeAccount {
  apiKey: string;
  secret: string;
  balances: { asset: string; free: string; locked: string }[];
  /** myTrades rows by symbol, in Binance's shape. */
  trades: Record<string, Record<string, unknown>[]>;
  canTrade?: boolean;
  canWithdraw?: boolean;
  /**
   * The key's "Enable Reading" (default true). Binance refuses a key without it on every USER_DATA
   * endpoint with -2015, the very answer an unknown key or a foreign IP gets.
   */
  canRead?: boolean;
  /** /sapi/v1/capital/deposit/hisrec rows, in Binance's shape (`binanceDeposit`). */
  deposits?: Record<string, unknown>[];
  /** /sapi/v1/capital/withdraw/history rows, in Binance's shape (`binanceWithdrawal`). */
  withdrawals?: Record<string, unknown>[];
  /** Extra state for SAPI routes tests add (bnbBurn, restrictions, dust). */
  extra?: Record<string, unknown>;
}

export interface FakeRequest {
  method: string;
  path: string;
  params: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  /** The client's address, as Binance sees it (IPv4-mapped IPv6 written as IPv4). */
  ip: string;
  account?: FakeAccount;
  /** When the fake began to handle the request (performance.now(), ms; headers read). */
  receivedAt: number;
  /** How long the fake took from then to its answer's last byte handed to the socket, ms; set once answered. */
  serviceMs?: number;
}

export interface FakeReply extends BodyForm {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Wait this long before answering (a slow venue). */
  delayMs?: number;
  /** Destroy the connection instead of answering: the request's effect stands, its answer is lost. */
  destroy?: boolean;
}

type Handler = (request: FakeRequest) => FakeReply | Promise<FakeReply>;
/** A fixed request weight, or Binance's rule when it depends on the parameters. */
type Weight = number | ((request: FakeRequest) => number);

interface Failure extends BodyForm {
  status: number;
  body: unknown;
  headers: Record<string, string>;
  pathPrefix?: string;
  remaining: number;
  /** Matching requests still to let through before failing. */
  skip: number;
}

export interface BinanceFakeOptions {
  variant?: 'global' | 'us';
  symbols?: FakeSymbol[];
  /** Request-weight budget per minute; above it the fake answers 429 like Binance. */
  weightLimit?: number;
  /** Added to the fake's clock, to provoke -1021 timestamp errors. */
  serverTimeOffsetMs?: number;
  /**
   * The time the weight minute is counted by (default: the real clock); a test that fixes the app's
   * clock passes the same one, so that the real minute turning over mid-test resets nothing.
   */
  weightClock?: () => number;
  /** How long an IP that calls on after a 429 is banned (Binance: 2 minutes to 3 days). Default 120 s. */
  banSeconds?: number;
}

/** One client IP's standing with the fake: its weight this minute, and any 429 or ban in force. */
interface IpState {
  minute: number;
  used: number;
  /** Until when a 429 told the IP to back off (ms on the weight clock); a call before it is banned. */
  backOffUntil: number;
  bannedUntil: number;
}

export class BinanceFake {
  readonly variant: 'global' | 'us';
  readonly symbols: FakeSymbol[];
  readonly accounts = new Map<string, FakeAccount>();
  readonly requests: FakeRequest[] = [];
  serverTimeOffsetMs: number;
  weightLimit: number;
  banSeconds: number;
  /** How many 429 and 418 answers the fake's own accounting gave (injected failures not counted). */
  readonly rateLimitAnswers = { 429: 0, 418: 0 };
  /** The highest weight any IP reached within one minute. */
  peakWeight = 0;
  private readonly ips = new Map<string, IpState>();
  private readonly weightClock: () => number;
  private readonly routes = new Map<string, { handler: Handler; signed: boolean; reads: boolean; weight: Weight }>();
  private failures: Failure[] = [];
  private delays: { ms: number; pathPrefix?: string; remaining: number }[] = [];
  private holds: { released: Promise<void>; pathPrefix?: string; remaining: number }[] = [];
  private server?: Server;
  url = '';

  constructor(options: BinanceFakeOptions = {}) {
    this.variant = options.variant ?? 'global';
    this.symbols = options.symbols ?? marketSymbols(this.variant);
    this.weightLimit = options.weightLimit ?? 6000;
    this.serverTimeOffsetMs = options.serverTimeOffsetMs ?? 0;
    this.weightClock = options.weightClock ?? Date.now;
    this.banSeconds = options.banSeconds ?? 120;
    registerMarketRoutes(this);
    registerAccountRoutes(this);
  }

  /**
   * Adds or replaces an endpoint. Signed endpoints verify key, timestamp and signature first, and
   * are USER_DATA (they need the key's "Enable Reading") unless `reads: false` (TRADE endpoints).
   */
  route(
    method: string,
    path: string,
    handler: Handler,
    options: { signed?: boolean; reads?: boolean; weight?: Weight } = {},
  ): this {
    const signed = options.signed ?? false;
    this.routes.set(`${method} ${path}`, {
      handler,
      signed,
      reads: signed && (options.reads ?? true),
      weight: options.weight ?? 1,
    });
    return this;
  }

  addAccount(account: FakeAccount): FakeAccount {
    this.accounts.set(account.apiKey, account);
    return account;
  }

  /** The next `times` matching requests (after `skip` of them pass) answer with this status and body instead. */
  fail(
    status: number,
    body: unknown = binanceError(-1000, 'An unknown error occurred.'),
    options: { times?: number; skip?: number; pathPrefix?: string; retryAfter?: number } & BodyForm = {},
  ): this {
    const headers: Record<string, string> = {};
    if (options.retryAfter !== undefined) headers['retry-after'] = String(options.retryAfter);
    this.failures.push({
      status,
      body,
      raw: options.raw,
      contentType: options.contentType,
      truncate: options.truncate,
      headers,
      pathPrefix: options.pathPrefix,
      remaining: options.times ?? 1,
      skip: options.skip ?? 0,
    });
    return this;
  }

  /** Weight that other clients behind the same IP used this minute; Binance counts it in our header. */
  spendWeight(weight: number, ip = '127.0.0.1'): this {
    this.ip(ip).used += weight;
    return this;
  }

  /** The weight an IP used in the current minute (the loopback clients by default). */
  usedWeight(ip = '127.0.0.1'): number {
    return this.ip(ip).used;
  }

  /** The next `times` matching requests are answered only after `ms`. */
  delay(ms: number, options: { times?: number; pathPrefix?: string } = {}): this {
    this.delays.push({ ms, pathPrefix: options.pathPrefix, remaining: options.times ?? 1 });
    return this;
  }

  /**
   * The next `times` matching requests are answered only once `release()` is called: a test decides
   * when a call in flight ends, instead of guessing with a delay.
   */
  hold(options: { times?: number; pathPrefix?: string } = {}): { release(): void } {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    this.holds.push({ released, pathPrefix: options.pathPrefix, remaining: options.times ?? 1 });
    return { release };
  }

  countRequests(path: string): number {
    return this.requests.filter((r) => r.path === path).length;
  }

  now(): number {
    return Date.now() + this.serverTimeOffsetMs;
  }

  async start(): Promise<this> {
    this.server = createFakeServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private take<T extends { pathPrefix?: string; remaining: number; skip?: number }>(
    list: T[],
    path: string,
  ): T | undefined {
    const found = list.find((f) => f.remaining > 0 && (!f.pathPrefix || path.startsWith(f.pathPrefix)));
    if (found?.skip) {
      found.skip -= 1;
      return undefined;
    }
    if (found) found.remaining -= 1;
    return found;
  }

  /** The IP's state, its weight reset when a new minute has begun. */
  private ip(address: string): IpState {
    const minute = Math.floor(this.weightClock() / 60_000);
    let state = this.ips.get(address);
    if (!state) {
      state = { minute, used: 0, backOffUntil: 0, bannedUntil: 0 };
      this.ips.set(address, state);
    }
    if (state.minute !== minute) {
      state.minute = minute;
      state.used = 0;
    }
    return state;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const receivedAt = performance.now();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    const params = new URLSearchParams(url.search);
    if (body && req.headers['content-type']?.includes('application/x-www-form-urlencoded')) {
      for (const [k, v] of new URLSearchParams(body)) params.append(k, v);
    }
    const request: FakeRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      params,
      headers: req.headers,
      body,
      ip: normaliseIp(req.socket.remoteAddress),
      receivedAt,
    };
    this.requests.push(request);

    // A held answer keeps no test process alive once the fake is closed: the timers are unref'd.
    const pause = this.take(this.delays, url.pathname);
    if (pause) await new Promise((r) => setTimeout(r, pause.ms).unref());
    const held = this.take(this.holds, url.pathname);
    if (held) await held.released;

    const reply = await this.dispatch(request, url.search.slice(1), body);
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs).unref());
    if (reply.destroy) {
      req.socket.destroy();
      return;
    }
    const contentType = reply.raw === undefined ? 'application/json;charset=UTF-8' : (reply.contentType ?? 'text/html');
    const headers: Record<string, string> = { 'content-type': contentType, ...reply.headers };
    if (url.pathname.startsWith('/api/')) headers['x-mbx-used-weight-1m'] = String(this.ip(request.ip).used);
    const text = reply.raw ?? JSON.stringify(reply.body);
    if (!res.destroyed) writeBody(res, reply.status ?? 200, headers, text, reply.truncate);
    // The venue's own share of a round trip, which the order benchmark subtracts from the app's.
    request.serviceMs = performance.now() - receivedAt;
  }

  private async dispatch(request: FakeRequest, query: string, body: string): Promise<FakeReply> {
    const failure = this.take(this.failures, request.path);
    if (failure) return { ...failure, headers: failure.headers };

    const route = this.routes.get(`${request.method} ${request.path}`);
    if (!route) return { status: 404, body: binanceError(-1, `Unknown endpoint ${request.method} ${request.path}`) };

    const limited = this.rateLimit(request, typeof route.weight === 'function' ? route.weight(request) : route.weight);
    if (limited) return limited;

    if (route.signed) {
      const refusal = this.verifySigned(request, query, body);
      if (refusal) return refusal;
      if (route.reads && request.account!.canRead === false) return { status: 401, body: INVALID_KEY };
    }
    return route.handler(request);
  }

  /**
   * Binance's rate limiting per IP: a banned IP gets 418; one that calls again while a 429 told it
   * to wait is banned; weight above the limit gets 429 until the minute ends.
   */
  private rateLimit(request: FakeRequest, weight: number): FakeReply | undefined {
    const now = this.weightClock();
    const state = this.ip(request.ip);
    const banned = (until: number): FakeReply => {
      this.rateLimitAnswers[418] += 1;
      return {
        status: 418,
        body: binanceError(
          -1003,
          `Way too much request weight used; IP banned until ${until}. Please use WebSocket Streams ` +
            'for live updates to avoid bans.',
        ),
        headers: { 'retry-after': String(Math.max(1, Math.ceil((until - now) / 1000))) },
      };
    };
    if (state.bannedUntil > now) return banned(state.bannedUntil);
    if (state.backOffUntil > now) {
      state.bannedUntil = now + this.banSeconds * 1000;
      return banned(state.bannedUntil);
    }
    state.used += weight;
    this.peakWeight = Math.max(this.peakWeight, state.used);
    if (state.used <= this.weightLimit) return undefined;
    const seconds = 60 - (Math.floor(now / 1000) % 60);
    state.backOffUntil = (state.minute + 1) * 60_000;
    this.rateLimitAnswers[429] += 1;
    return {
      status: 429,
      body: binanceError(
        -1003,
        `Too much request weight used; current limit is ${this.weightLimit} request weight per 1 MINUTE. ` +
          'Please use WebSocket Streams for live updates to avoid polling the API.',
      ),
      headers: { 'retry-after': String(seconds) },
    };
  }

  /** Binance's checks, in Binance's order: key, then timestamp window, then signature. */
  private verifySigned(request: FakeRequest, query: string, body: string): FakeReply | undefined {
    const apiKey = request.headers['x-mbx-apikey'];
    if (typeof apiKey !== 'string' || apiKey.length === 0) {
      return { status: 401, body: binanceError(-2014, 'API-key format invalid.') };
    }
    const account = this.accounts.get(apiKey);
    if (!account) return { status: 401, body: INVALID_KEY };
    const timestamp = Number(request.params.get('timestamp'));
    const recvWindow = Number(request.params.get('recvWindow') ?? 5000);
    const serverTime = this.now();
    if (!Number.isFinite(timestamp) || timestamp >= serverTime + 1000 || serverTime - timestamp > recvWindow) {
      return { status: 400, body: binanceError(-1021, 'Timestamp for this request is outside of the recvWindow.') };
    }
    const payload = `${query}${body}`.replace(/&?signature=[0-9a-fA-F]*/, '');
    const given = Buffer.from(request.params.get('signature') ?? '', 'hex');
    const expected = createHmac('sha256', account.secret).update(payload).digest();
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return { status: 400, body: binanceError(-1022, 'Signature for this request is not valid.') };
    }
    request.account = account;
    return undefined;
  }
}

function normaliseIp(address: string | undefined): string {
  if (!address) return 'unknown';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/** A fake started and ready; close it in `after`. */
export async function startBinanceFake(options: BinanceFakeOptions = {}): Promise<BinanceFake> {
  return new BinanceFake(options).start();
}
