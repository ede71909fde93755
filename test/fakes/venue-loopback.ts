// The loopback HTTP server under the Kraken, Coinbase, OKX and Bybit fakes: routing, a request log,
// injected failures (the venue's own 429 body and headers, 5xx, slow answers) and the account model
// every venue renders in its own shapes. Each venue's file owns its authentication and its shapes.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One fill, venue-neutral; each fake renders it in its venue's shape. */
export interface VenueFill {
  id: string;
  orderId: string;
  base: string;
  quote: string;
  side: 'buy' | 'sell';
  price: string;
  amount: string;
  fee: string;
  feeCurrency: string;
  /** Epoch milliseconds. */
  time: number;
}

export interface VenueAccount {
  apiKey: string;
  secret: string;
  passphrase?: string;
  balances: { currency: string; free: string; locked: string }[];
  /** Fills in any order; the fakes answer them newest first, as the venues do. */
  fills: VenueFill[];
}

export interface VenueMarketSeed {
  base: string;
  quote: string;
  last: string;
  bid: string;
  ask: string;
}

/** The markets every venue fake lists (its own ids and names derived from these). */
export const SEED_MARKETS: readonly VenueMarketSeed[] = [
  { base: 'BTC', quote: 'USDT', last: '65000.1', bid: '64999.9', ask: '65000.3' },
  { base: 'ETH', quote: 'USDT', last: '3200.5', bid: '3200.4', ask: '3200.6' },
  { base: 'ETH', quote: 'BTC', last: '0.0492', bid: '0.0491', ask: '0.0493' },
];

export interface LoopbackRequest {
  method: string;
  path: string;
  /** The query string as sent, without `?` (signatures cover it verbatim). */
  rawQuery: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  /** When it arrived (epoch ms). */
  at: number;
}

export interface LoopbackReply {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type LoopbackHandler = (request: LoopbackRequest) => LoopbackReply | Promise<LoopbackReply>;

/**
 * The order faults (as the Binance fake's): `drop-after` executes, then the connection is destroyed;
 * `503-after` executes and answers the venue's 5xx; `503-before` answers it and executes nothing;
 * `slow-after` executes and answers after `ms`.
 */
export type VenueFaultKind = 'drop-after' | '503-after' | '503-before' | 'slow-after';

interface Fault {
  kind: VenueFaultKind;
  path: string;
  method: string;
  ms: number;
  reply5xx: LoopbackReply;
}

interface Injected {
  reply: LoopbackReply;
  path?: string;
  remaining: number;
  delayMs: number;
}

export interface Loopback {
  url: string;
  /** Every request received, oldest first. */
  requests: LoopbackRequest[];
  /** Answer the next `times` requests (whose path starts with `path`) with `reply`, after `delayMs`. */
  fail(reply: LoopbackReply, options?: { times?: number; path?: string; delayMs?: number }): void;
  /** Hold every answer back this long (a slow venue). */
  delay(ms: number): void;
  /** The next `method` request to exactly `path` meets this fault; `reply5xx` is the venue's own 5xx. */
  fault(kind: VenueFaultKind, options: { path: string; method?: string; ms?: number; reply5xx: LoopbackReply }): void;
  clearFailures(): void;
  close(): Promise<void>;
}

export async function startLoopback(handler: LoopbackHandler): Promise<Loopback> {
  const requests: LoopbackRequest[] = [];
  let injected: Injected[] = [];
  let delayMs = 0;
  let faults: Fault[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const target = req.url ?? '/';
      const at = target.indexOf('?');
      const rawQuery = at < 0 ? '' : target.slice(at + 1);
      const request: LoopbackRequest = {
        method: req.method ?? 'GET',
        path: at < 0 ? target : target.slice(0, at),
        rawQuery,
        query: new URLSearchParams(rawQuery),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      requests.push(request);
      const failure = injected.find((f) => f.remaining > 0 && (!f.path || request.path.startsWith(f.path)));
      let reply: LoopbackReply;
      let wait = delayMs;
      const faultAt = faults.findIndex((f) => f.path === request.path && f.method === request.method);
      const fault = faultAt < 0 ? undefined : faults.splice(faultAt, 1)[0];
      if (fault?.kind === '503-before') {
        reply = fault.reply5xx;
      } else if (failure) {
        failure.remaining -= 1;
        reply = failure.reply;
        wait += failure.delayMs;
      } else {
        try {
          reply = await handler(request);
        } catch (error) {
          reply = { status: 500, body: { error: String(error) } };
        }
      }
      if (fault?.kind === 'drop-after') {
        req.socket.destroy();
        return;
      }
      if (fault?.kind === '503-after') reply = fault.reply5xx;
      if (fault?.kind === 'slow-after') wait += fault.ms;
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait).unref());
      if (res.destroyed) return;
      const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    fail(reply, options = {}) {
      injected.push({ reply, path: options.path, remaining: options.times ?? 1, delayMs: options.delayMs ?? 0 });
    },
    delay(ms) {
      delayMs = ms;
    },
    fault(kind, options) {
      faults.push({
        kind,
        path: options.path,
        method: options.method ?? 'POST',
        ms: options.ms ?? 1000,
        reply5xx: options.reply5xx,
      });
    },
    clearFailures() {
      injected = [];
      faults = [];
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Fills of one market, newest first, as every one of these venues pages them. */
export function newestFirst(fills: readonly VenueFill[]): VenueFill[] {
  return [...fills].sort((a, b) => b.time - a.time || (a.id < b.id ? 1 : -1));
}

/** `count` fills of base/quote, one a minute from `start`, alternating sides, with distinct prices. */
export function seedFills(base: string, quote: string, count: number, start: number, prefix: string): VenueFill[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `${prefix}${String(i + 1).padStart(5, '0')}`,
    orderId: `${prefix}o${String(i + 1).padStart(5, '0')}`,
    base,
    quote,
    side: i % 2 === 0 ? ('buy' as const) : ('sell' as const),
    price: (60000 + i).toFixed(1),
    amount: '0.001',
    fee: '0.06',
    feeCurrency: quote,
    time: start + i * 60_000,
  }));
}

/** The fill's cost (price × amount), as the venues state it. */
export function fillCost(fill: VenueFill): string {
  return String(Number((Number(fill.price) * Number(fill.amount)).toFixed(8)));
}

/** An order a fake holds, venue-neutral; each fake renders it in its venue's shape. */
export interface VenueOrder {
  id: string;
  clientId: string;
  base: string;
  quote: string;
  side: 'buy' | 'sell';
  type: 'limit' | 'market';
  amount: string;
  price: string | null;
  status: 'open' | 'canceled';
  time: number;
}

let orderCounter = 0;

/** The account's orders (created on first use). */
export function ordersOf(account: VenueAccount): VenueOrder[] {
  const holder = account as VenueAccount & { orders?: VenueOrder[] };
  holder.orders ??= [];
  return holder.orders;
}

/** Places an order; undefined when an open order already has that client id (unique among open orders). */
export function placeOrder(account: VenueAccount, order: Omit<VenueOrder, 'id' | 'status' | 'time'>, id?: string) {
  const orders = ordersOf(account);
  if (order.clientId && orders.some((o) => o.status === 'open' && o.clientId === order.clientId)) return undefined;
  orderCounter += 1;
  const placed: VenueOrder = {
    ...order,
    id: id ?? `ord-${process.pid}-${orderCounter}`,
    status: 'open',
    time: Date.now(),
  };
  orders.push(placed);
  return placed;
}
