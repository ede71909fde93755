// The limits Kraken, OKX, Bybit and Coinbase keep per key (or account) and endpoint, from their public
// API documentation, as the venue budget counts them across instances (docs/decisions/255, 281). What each
// private call draws, and how each venue says a key went over anyway. Public calls are limited per IP
// by these venues and are not counted here (ccxt's throttle and the breaker hold them).
import { perWindow, type KeyLimit, type VenueKeyLimits } from '../../../platform/venue-budget/key-limits.ts';
import type { Venue } from '../venues.domain.ts';

/** Kraken's call counter of a key's tier: Starter 15 decaying 0.33/s, Intermediate 20 and 0.5/s, Pro 20 and 1/s. */
export interface KrakenCounter {
  max: number;
  decayPerSecond: number;
}

export const KRAKEN_STARTER: KrakenCounter = { max: 15, decayPerSecond: 0.33 };

const record = (body: unknown): Record<string, unknown> =>
  typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};

/** Ledger and trade history calls cost 2; orders have their own per-pair limiter, not this counter. */
const KRAKEN_HISTORY = new Set(['TradesHistory', 'Ledgers', 'QueryLedgers', 'QueryTrades']);
const KRAKEN_TRADING = new Set([
  'AddOrder',
  'AddOrderBatch',
  'EditOrder',
  'AmendOrder',
  'CancelOrder',
  'CancelOrderBatch',
  'CancelAll',
  'CancelAllOrdersAfter',
]);

function kraken(counter: KrakenCounter): VenueKeyLimits {
  return {
    of(url) {
      const call = /^\/0\/private\/([A-Za-z]+)$/.exec(url.pathname)?.[1];
      if (!call || KRAKEN_TRADING.has(call)) return [];
      return [
        {
          name: 'counter',
          cost: KRAKEN_HISTORY.has(call) ? 2 : 1,
          max: counter.max,
          perSecond: counter.decayPerSecond,
          describes: `call counter (${counter.max}, decaying ${counter.decayPerSecond}/s)`,
        },
      ];
    },
    exceeded: (_status, body) => {
      const errors = record(body).error;
      return Array.isArray(errors) && errors.some((e) => String(e).startsWith('EAPI:Rate limit exceeded'));
    },
  };
}

/** OKX's limits per endpoint (and user id) per 2 s; `/s` ones are per second. Unlisted private calls: the lowest. */
const OKX_PER_2S: Readonly<Record<string, number>> = {
  '/api/v5/account/balance': 10,
  '/api/v5/account/config': 5,
  '/api/v5/trade/fills-history': 10,
  '/api/v5/trade/fills': 60,
  '/api/v5/trade/order': 60,
  '/api/v5/trade/batch-orders': 300,
  '/api/v5/trade/cancel-order': 60,
  '/api/v5/trade/cancel-batch-orders': 300,
  '/api/v5/trade/orders-pending': 60,
  '/api/v5/trade/orders-history': 40,
  '/api/v5/trade/orders-history-archive': 20,
};
const OKX_PER_1S: Readonly<Record<string, number>> = {
  '/api/v5/asset/balances': 6,
  '/api/v5/asset/currencies': 6,
  '/api/v5/asset/deposit-history': 6,
  '/api/v5/asset/withdrawal-history': 6,
};

const okx: VenueKeyLimits = {
  of(url, method) {
    const path = url.pathname.replace(/\/+$/, '');
    if (!path.startsWith('/api/v5/') || /^\/api\/v5\/(public|market)\//.test(path)) return [];
    const perSecond = OKX_PER_1S[path];
    if (perSecond !== undefined) return [perWindow(path, perSecond, 1_000)];
    // Reading an order and placing one are counted apart (both 60 per 2 s).
    const name = path === '/api/v5/trade/order' ? `${method} ${path}` : path;
    return [perWindow(name, OKX_PER_2S[path] ?? 5, 2_000)];
  },
  exceeded: (status, body) => status === 429 || String(record(body).code) === '50011',
};

/** Bybit's per-UID limits per endpoint and second (spot); unlisted private calls get its common 10. */
const BYBIT_PER_S: Readonly<Record<string, number>> = {
  '/v5/order/create': 20,
  '/v5/order/cancel': 20,
  '/v5/order/cancel-all': 20,
  '/v5/order/amend': 10,
  '/v5/order/realtime': 50,
  '/v5/order/history': 50,
  '/v5/execution/list': 50,
  '/v5/account/wallet-balance': 50,
  '/v5/account/fee-rate': 10,
};

const bybit: VenueKeyLimits = {
  of(url) {
    const path = url.pathname.replace(/\/+$/, '');
    if (!path.startsWith('/v5/') || path.startsWith('/v5/market/')) return [];
    return [perWindow(path, BYBIT_PER_S[path] ?? 10, 1_000)];
  },
  // 10006: this UID's limit of the endpoint; 10018: the IP's.
  exceeded: (_status, body) => [10006, 10018].includes(Number(record(body).retCode)),
  // Every key of one UID draws on the same limits: counted under the UID Bybit names (decision 281).
  perAccount: true,
};

/** Coinbase Advanced Trade: 30 private calls a second per key; its public reads are limited per IP. */
export const COINBASE_PUBLIC = /^\/(v2\/(time|currencies|exchange-rates)|api\/v3\/brokerage\/(market\/|time))/;

const coinbase: VenueKeyLimits = {
  of(url) {
    if (COINBASE_PUBLIC.test(url.pathname)) return [];
    return [{ ...perWindow('private', 30, 1_000), describes: 'limit of 30 private calls per second' }];
  },
  exceeded: (status) => status === 429,
};

/** The per-key limits of a venue; none for the Binance venues (their limits are per IP: the weight budget). */
export function venueKeyLimits(venue: Venue, settings: { krakenCounter: KrakenCounter }): VenueKeyLimits | undefined {
  switch (venue) {
    case 'kraken':
      return kraken(settings.krakenCounter);
    case 'okx':
      return okx;
    case 'bybit':
      return bybit;
    case 'coinbase':
      return coinbase;
    default:
      return undefined;
  }
}

export type { KeyLimit };
