// The table the venue conformance suite runs over: per venue, its loopback fake, a fresh key in the
// venue's own form, the credential body it needs, and its own rate-limit and outage answers.
import { randomBytes } from 'node:crypto';
import { startBybitFake } from '../../fakes/bybit.ts';
import { coinbaseKey, startCoinbaseFake } from '../../fakes/coinbase.ts';
import { startKrakenFake } from '../../fakes/kraken.ts';
import { startOkxFake } from '../../fakes/okx.ts';
import {
  seedFills,
  type Loopback,
  type LoopbackReply,
  type VenueAccount,
  type VenueFill,
} from '../../fakes/venue-loopback.ts';

export interface ConformanceFake extends Loopback {
  addAccount(account: VenueAccount): VenueAccount;
  /** Answers of the venue's own limit the fake gave (injected ones not counted). */
  stats: { limitAnswers: number };
  /**
   * The last price of base/quote went through `price`: resting limits it crosses fill (each at most
   * `upTo`, when given); answers how many.
   */
  cross(base: string, quote: string, price: string, upTo?: string): number;
}

export interface ConformanceVenue {
  venue: 'kraken' | 'coinbase' | 'okx' | 'bybit';
  start(): Promise<ConformanceFake>;
  /** A fresh key as the venue issues them. */
  key(): { apiKey: string; secret: string; passphrase?: string };
  /** Another secret of the same form: the signature no longer matches. */
  otherSecret(): string;
  /** The path prefix of the venue's private calls (failures are injected there). */
  privatePath: string;
  /** The venue's answer when a limit is hit, byte for byte. */
  rateLimited: LoopbackReply;
  /** An HTTP 429 (OKX, Coinbase) opens the venue's breaker; Kraken and Bybit say it in a 200 body, per key. */
  tripsBreaker: boolean;
  /** After a per-key answer, the least the key's next call waits (one call's room on its counter). */
  backoffMs: number;
  /** The venue's answer when it is down. */
  outage: LoopbackReply;
  /**
   * Its other answers that say nothing of whether it did what it was asked, though ccxt reads them as the
   * venue's refusal: a 5xx with a JSON error body, its own "timed out" or "internal error" in a 200.
   */
  noOutcome: LoopbackReply[];
  /**
   * The requests that place an order, begin its lookup and cancel it (faults go there). Coinbase's lookup is a
   * path's start: it asks an order by the venue id it named, else lists its orders (decision 1290).
   */
  orders: Record<'place' | 'lookup' | 'cancel', { path: string; method: string }>;
  /** Settings the app needs for this venue's fake (its limits as the budget models them). */
  env?: Record<string, string>;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

export const CONFORMANCE_VENUES: readonly ConformanceVenue[] = [
  {
    venue: 'kraken',
    async start() {
      // The suite runs without ccxt's throttle (which spaces Kraken calls 3 s apart in production),
      // so the call counter is raised here; its own answer is the rate-limit scenario's.
      const fake = await startKrakenFake();
      Object.assign(fake.counter, { max: 10_000, decayPerSecond: 1 });
      return fake;
    },
    // The budget models the fake's counter (decision 255): a raised ceiling, decaying one a second.
    env: { KRAKEN_CALL_COUNTER: '10000/1' },
    key: () => ({ apiKey: `kr${hex(24)}`, secret: randomBytes(64).toString('base64') }),
    otherSecret: () => randomBytes(64).toString('base64'),
    privatePath: '/0/private/',
    rateLimited: { body: { error: ['EAPI:Rate limit exceeded'], result: {} } },
    tripsBreaker: false,
    // One point of our share of a counter decaying one a second (0.8 a second: 1.25 s, decision 430),
    // less the time the answer took to come back.
    backoffMs: 800,
    orders: {
      place: { path: '/0/private/AddOrder', method: 'POST' },
      lookup: { path: '/0/private/OpenOrders', method: 'POST' },
      cancel: { path: '/0/private/CancelOrder', method: 'POST' },
    },
    outage: { status: 503, body: { error: ['EService:Unavailable'], result: {} } },
    noOutcome: [{ body: { error: ['EService:Deadline elapsed'], result: {} } }],
  },
  {
    venue: 'coinbase',
    start: startCoinbaseFake,
    key: () => coinbaseKey(hex(8)),
    otherSecret: () => coinbaseKey('other').secret,
    privatePath: '/api/v3/brokerage/',
    rateLimited: { status: 429, body: { errors: [{ id: 'rate_limit_exceeded', message: 'Too many requests' }] } },
    tripsBreaker: true,
    backoffMs: 0,
    orders: {
      place: { path: '/api/v3/brokerage/orders', method: 'POST' },
      lookup: { path: '/api/v3/brokerage/orders/historical/', method: 'GET' },
      cancel: { path: '/api/v3/brokerage/orders/batch_cancel', method: 'POST' },
    },
    outage: {
      status: 503,
      body: 'upstream connect error or disconnect/reset before headers',
      headers: { 'content-type': 'text/plain' },
    },
    noOutcome: [{ status: 500, body: { error: 'internal_server_error', message: 'Internal server error' } }],
  },
  {
    venue: 'okx',
    start: startOkxFake,
    key: () => ({
      apiKey: `${hex(4)}-${hex(2)}-${hex(2)}-${hex(2)}-${hex(6)}`,
      secret: hex(16).toUpperCase(),
      passphrase: `Pass-${hex(4)}`,
    }),
    otherSecret: () => hex(16).toUpperCase(),
    privatePath: '/api/v5/account/',
    rateLimited: { status: 429, body: { code: '50011', msg: 'Too Many Requests', data: [] } },
    tripsBreaker: true,
    backoffMs: 0,
    orders: {
      place: { path: '/api/v5/trade/batch-orders', method: 'POST' },
      lookup: { path: '/api/v5/trade/order', method: 'GET' },
      cancel: { path: '/api/v5/trade/cancel-order', method: 'POST' },
    },
    outage: {
      status: 503,
      body: { code: '50001', msg: 'Service temporarily unavailable. Please try again later.', data: [] },
    },
    noOutcome: [{ status: 502, body: { code: '1', msg: 'Operation failed.', data: [] } }],
  },
  {
    venue: 'bybit',
    start: startBybitFake,
    key: () => ({ apiKey: hex(9).toUpperCase(), secret: hex(18).toUpperCase() }),
    otherSecret: () => hex(18).toUpperCase(),
    privatePath: '/v5/account/',
    rateLimited: {
      body: { retCode: 10006, retMsg: 'Too many visits!', result: {}, retExtInfo: {}, time: 0 },
      headers: { 'x-bapi-limit': '50', 'x-bapi-limit-status': '0', 'x-bapi-limit-reset-timestamp': '0' },
    },
    tripsBreaker: false,
    // One call's room on our share of a 50-a-second limit (drained at 20 a second): 50 ms.
    backoffMs: 30,
    orders: {
      place: { path: '/v5/order/create', method: 'POST' },
      lookup: { path: '/v5/order/realtime', method: 'GET' },
      cancel: { path: '/v5/order/cancel', method: 'POST' },
    },
    outage: {
      status: 503,
      body: '<html><body>503 Service Temporarily Unavailable</body></html>',
      headers: { 'content-type': 'text/html' },
    },
    noOutcome: [
      { body: { retCode: 170146, retMsg: 'Order creation timeout', result: {}, retExtInfo: {}, time: 0 } },
      {
        body: { retCode: 10016, retMsg: 'System error. Please try again later.', result: {}, retExtInfo: {}, time: 0 },
      },
    ],
  },
];

/** Minutes before now where an account's history starts: inside Bybit's 7-day windows' reach, and a year's horizon. */
const HISTORY_START = () => Date.now() - 20 * 86_400_000;

/** An account with balances and `btcFills` BTC/USDT fills (one a minute) plus three ETH/USDT ones. */
export function conformanceAccount(v: ConformanceVenue, btcFills: number): VenueAccount {
  const key = v.key();
  const start = HISTORY_START();
  const fills: VenueFill[] = [
    ...seedFills('BTC', 'USDT', btcFills, start, `${v.venue.slice(0, 2).toUpperCase()}B`),
    ...seedFills('ETH', 'USDT', 3, start + 30_000, `${v.venue.slice(0, 2).toUpperCase()}E`),
  ];
  return {
    ...key,
    balances: [
      { currency: 'BTC', free: '0.5', locked: '0.1' },
      { currency: 'ETH', free: '1.5', locked: '0' },
      { currency: 'USDT', free: '1000.1', locked: '0' },
    ],
    fills,
  };
}

/** The body of POST /api/exchange/credentials (and /validate) for an account. */
export function credentialBody(v: ConformanceVenue, account: VenueAccount, field: 'exchange' | 'exchange_name') {
  return {
    [field]: v.venue,
    api_key: account.apiKey,
    api_secret: account.secret,
    ...(account.passphrase ? { api_passphrase: account.passphrase } : {}),
  };
}
