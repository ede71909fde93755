// The loopback HTTP server under the Kraken, Coinbase, OKX and Bybit fakes: routing, a request log,
// injected failures (the venue's own 429 body and headers, 5xx, slow answers) and the account model
// every venue renders in its own shapes. Each venue's file owns its authentication and its shapes.
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Decimal } from 'decimal.js';
import { type BodyForm, writeBody } from './garbled-answers.ts';
import { createFakeServer } from './loopback-server.ts';

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
  /** The client order id of the order it filled, where the venue shows it beside the fill. */
  clientId?: string;
  /** Whether the order rested on the book (a limit filled when the price crossed it). */
  maker?: boolean;
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

export interface LoopbackReply extends BodyForm {
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
  const server: Server = createFakeServer((req, res) => {
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
      const text = reply.raw ?? (typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
      const contentType = reply.raw === undefined ? 'application/json' : (reply.contentType ?? 'text/html');
      writeBody(res, reply.status ?? 200, { 'content-type': contentType, ...reply.headers }, text, reply.truncate);
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
  /** In the base currency, or in the quote for a market buy sized by what it spends (`quoteSized`). */
  amount: string;
  price: string | null;
  /** A market buy sized in the quote currency (Coinbase's quote_size, Bybit's quoteCoin, OKX's quote_ccy). */
  quoteSized?: boolean;
  /** Open with `filled` > 0 is partly filled; `filled` once all of it is. */
  status: 'open' | 'canceled' | 'filled';
  time: number;
  /** Base filled, quote spent or received, and fees so far (in `feeCurrency`). */
  filled: string;
  cost: string;
  fee: string;
  feeCurrency: string;
  /** When it last changed (epoch ms). */
  updated: number;
}

let orderCounter = 0;

/** The account's orders (created on first use). */
export function ordersOf(account: VenueAccount): VenueOrder[] {
  const holder = account as VenueAccount & { orders?: VenueOrder[] };
  holder.orders ??= [];
  return holder.orders;
}

type NewOrder = Omit<VenueOrder, 'id' | 'status' | 'time' | 'filled' | 'cost' | 'fee' | 'feeCurrency' | 'updated'>;

/** Places an order; undefined when an open order already has that client id (unique among open orders). */
export function placeOrder(account: VenueAccount, order: NewOrder, id?: string) {
  const orders = ordersOf(account);
  if (order.clientId && orders.some((o) => o.status === 'open' && o.clientId === order.clientId)) return undefined;
  orderCounter += 1;
  const now = Date.now();
  const placed: VenueOrder = {
    ...order,
    id: id ?? `ord-${process.pid}-${orderCounter}`,
    status: 'open',
    time: now,
    filled: '0',
    cost: '0',
    fee: '0',
    feeCurrency: order.quote,
    updated: now,
  };
  orders.push(placed);
  return placed;
}

/** How a venue fills: its fee rates, the currency it charges them in, and the form of its trade ids. */
export interface FillRules {
  taker: string;
  maker: string;
  /** Kraken and Coinbase charge the quote currency; OKX and Bybit the currency received. */
  feeIn: 'quote' | 'received';
  tradeId(): string;
}

const dec = (value: string) => new Decimal(value);

function moveBalance(account: VenueAccount, currency: string, delta: Decimal): void {
  let row = account.balances.find((b) => b.currency === currency);
  if (!row) {
    row = { currency, free: '0', locked: '0' };
    account.balances.push(row);
  }
  row.free = dec(row.free).plus(delta).toFixed();
}

/** One fill of `amount` (base) of the order at `price`: the order, the balances and the trade history move. */
export function fillOrder(
  account: VenueAccount,
  order: VenueOrder,
  rules: FillRules,
  fill: { price: string; amount: string; maker: boolean },
): VenueFill {
  const amount = dec(fill.amount);
  const cost = amount.times(fill.price);
  const buy = order.side === 'buy';
  const rate = dec(fill.maker ? rules.maker : rules.taker);
  const inBase = rules.feeIn === 'received' && buy;
  const fee = (inBase ? amount : cost).times(rate).toDecimalPlaces(10);
  const feeCurrency = inBase ? order.base : order.quote;
  moveBalance(account, order.quote, buy ? cost.negated() : cost);
  moveBalance(account, order.base, buy ? amount : amount.negated());
  moveBalance(account, feeCurrency, fee.negated());
  const now = Date.now();
  const row: VenueFill = {
    id: rules.tradeId(),
    orderId: order.id,
    base: order.base,
    quote: order.quote,
    side: order.side,
    price: fill.price,
    amount: amount.toFixed(),
    fee: fee.toFixed(),
    feeCurrency,
    time: now,
    clientId: order.clientId,
    maker: fill.maker,
  };
  account.fills.push(row);
  order.filled = dec(order.filled).plus(amount).toFixed();
  order.cost = dec(order.cost).plus(cost).toFixed();
  order.fee = dec(order.fee).plus(fee).toFixed();
  order.feeCurrency = feeCurrency;
  order.updated = now;
  // A quote-sized buy is done when what it spends is spent: fillNow says so.
  if (!order.quoteSized && dec(order.filled).gte(order.amount)) order.status = 'filled';
  return row;
}

/** The order's fills, in the account's history. */
export function fillsOfOrder(account: VenueAccount, order: VenueOrder): VenueFill[] {
  return account.fills.filter((f) => f.orderId === order.id);
}

/** The seed market of an order, with its touch prices. */
export function seedOf(order: { base: string; quote: string }): VenueMarketSeed {
  return SEED_MARKETS.find((m) => m.base === order.base && m.quote === order.quote)!;
}

/**
 * A market order (or a limit that crosses the touch) fills at once against the touch, in two trades
 * as the book's two best levels would: 60% then the rest, so an order's fills are several.
 */
export function fillNow(account: VenueAccount, order: VenueOrder, rules: FillRules): void {
  const market = seedOf(order);
  const price = order.side === 'buy' ? market.ask : market.bid;
  const total = order.quoteSized
    ? dec(order.amount).dividedBy(price).toDecimalPlaces(8, Decimal.ROUND_DOWN)
    : dec(order.amount);
  const first = total.times('0.6').toDecimalPlaces(8, Decimal.ROUND_DOWN);
  const parts = first.gt(0) && first.lt(total) ? [first, total.minus(first)] : [total];
  for (const part of parts) fillOrder(account, order, rules, { price, amount: part.toFixed(), maker: false });
  if (order.quoteSized) order.status = 'filled';
}

/** Whether a limit order would cross the touch on arrival (it then fills at once, as a taker). */
export function crossesOnArrival(order: VenueOrder): boolean {
  if (order.type !== 'limit' || order.price === null) return true;
  const market = seedOf(order);
  return order.side === 'buy' ? dec(order.price).gte(market.ask) : dec(order.price).lte(market.bid);
}

/**
 * The last price of base/quote went through `price`: the account's resting limit orders it crosses fill
 * at their own price, as makers; `upTo` (base) is what traded there, so each fills at most that much and
 * stays open, partly filled, with the rest. Answers how many were filled, wholly or in part.
 */
export function crossResting(
  accounts: Iterable<VenueAccount>,
  base: string,
  quote: string,
  price: string,
  rules: FillRules,
  upTo?: string,
): number {
  let filled = 0;
  for (const account of accounts)
    for (const order of ordersOf(account)) {
      if (order.status !== 'open' || order.type !== 'limit' || order.base !== base || order.quote !== quote) continue;
      const crosses = order.side === 'buy' ? dec(price).lte(order.price!) : dec(price).gte(order.price!);
      if (!crosses) continue;
      const left = dec(order.amount).minus(order.filled);
      const amount = upTo === undefined ? left : Decimal.min(left, upTo);
      fillOrder(account, order, rules, { price: order.price!, amount: amount.toFixed(), maker: true });
      filled += 1;
    }
  return filled;
}
