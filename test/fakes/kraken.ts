// A loopback Kraken spot REST server (PROTOCOLS B8): public `/0/public/*` GETs, private form-encoded
// `POST /0/private/*` signed with API-Key and API-Sign = base64(HMAC-SHA512(path + SHA-256(nonce +
// body), base64-decoded secret)), a nonce greater than the last one accepted for the key, in the order
// requests arrive (else `EAPI:Invalid nonce`, and the request does nothing), errors as HTTP 200
// `{"error": ["EAPI:…"], "result": {}}`, and the per-key call counter that decays over time
// (`EAPI:Rate limit exceeded` above it). Public calls count on a counter per IP that decays about one call
// a second; when a test sets its ceiling (`publicCounter`), a call above it is answered HTTP 429
// `EGeneral:Too many requests`. TradesHistory answers 50 trades a page, newest first, with
// `count`, `ofs`, an exclusive `start` and an inclusive `end` (seconds).
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { KRAKEN_FILLS, krakenOrders, krakenTrade } from './kraken-orders.ts';
import {
  crossResting,
  newestFirst,
  SEED_MARKETS,
  startLoopback,
  type Loopback,
  type LoopbackReply,
  type LoopbackRequest,
  type VenueAccount,
} from './venue-loopback.ts';

/** Kraken's own asset ids and altnames. */
const ASSETS: Record<string, { id: string; altname: string; decimals: number }> = {
  BTC: { id: 'XXBT', altname: 'XBT', decimals: 10 },
  ETH: { id: 'XETH', altname: 'ETH', decimals: 10 },
  USDT: { id: 'USDT', altname: 'USDT', decimals: 8 },
};
const PAIR_IDS: Record<string, { id: string; altname: string }> = {
  'BTC/USDT': { id: 'XBTUSDT', altname: 'XBTUSDT' },
  'ETH/USDT': { id: 'ETHUSDT', altname: 'ETHUSDT' },
  'ETH/BTC': { id: 'XETHXXBT', altname: 'ETHXBT' },
};
const PAGE = 50;

export interface KrakenFake extends Loopback {
  addAccount(account: VenueAccount): VenueAccount;
  /** The call counter's ceiling (Kraken's tier: 15 starter, 20 intermediate) and decay per second. */
  counter: { max: number; decayPerSecond: number };
  /** How far the venue's clock runs ahead of ours: AddOrder's `deadline` is read on it. */
  clock: { aheadMs: number };
  /** The public calls' counter per IP: its ceiling (none unless a test sets one) and decay per second. */
  publicCounter: { max: number; decayPerSecond: number };
  /**
   * Answers of the venue's own limit (per key; `publicLimitAnswers`: per IP, public calls) and `EAPI:Invalid
   * nonce` answers this fake gave (injected failures not counted).
   */
  stats: { limitAnswers: number; publicLimitAnswers: number; invalidNonces: number };
  /** The last nonce accepted for a key; with `nonce`, another client of the key was accepted with it. */
  acceptedNonce(apiKey: string, nonce?: bigint): bigint | undefined;
  /**
   * The last price of base/quote went through `price`: resting limits it crosses fill (each at most
   * `upTo`, when given); answers how many.
   */
  cross(base: string, quote: string, price: string, upTo?: string): number;
}

const ok = (result: unknown): LoopbackReply => ({ body: { error: [], result } });
const error = (message: string): LoopbackReply => ({ body: { error: [message], result: {} } });

function pairOf(fill: { base: string; quote: string }) {
  return PAIR_IDS[`${fill.base}/${fill.quote}`]!;
}

export async function startKrakenFake(): Promise<KrakenFake> {
  const accounts = new Map<string, VenueAccount>();
  const nonces = new Map<string, bigint>();
  const counters = new Map<string, { value: number; at: number }>();
  const counter = { max: 20, decayPerSecond: 0.5 };
  const publicCounter = { max: Number.POSITIVE_INFINITY, decayPerSecond: 1 };
  const clock = { aheadMs: 0 };
  const stats = { limitAnswers: 0, publicLimitAnswers: 0, invalidNonces: 0 };

  /** Kraken's counter: +1 a call (+2 for history calls), decaying continuously. */
  function charge(key: string, cost: number, limit = counter): boolean {
    const now = Date.now();
    const state = counters.get(key) ?? { value: 0, at: now };
    const value = Math.max(0, state.value - ((now - state.at) / 1000) * limit.decayPerSecond);
    if (value + cost > limit.max) {
      counters.set(key, { value, at: now });
      return false;
    }
    counters.set(key, { value: value + cost, at: now });
    return true;
  }

  function authenticate(request: LoopbackRequest): VenueAccount | LoopbackReply {
    const key = String(request.headers['api-key'] ?? '');
    const account = accounts.get(key);
    if (!account) return error('EAPI:Invalid key');
    const form = new URLSearchParams(request.body);
    const nonce = form.get('nonce') ?? '';
    const hash = createHash('sha256')
      .update(nonce + request.body)
      .digest();
    const expected = createHmac('sha512', Buffer.from(account.secret, 'base64'))
      .update(Buffer.concat([Buffer.from(request.path), hash]))
      .digest();
    const given = Buffer.from(String(request.headers['api-sign'] ?? ''), 'base64');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return error('EAPI:Invalid signature');
    if (!/^[0-9]{1,20}$/.test(nonce) || BigInt(nonce) <= (nonces.get(key) ?? 0n)) {
      stats.invalidNonces += 1;
      return error('EAPI:Invalid nonce');
    }
    nonces.set(key, BigInt(nonce));
    // Orders have a limiter of their own (per pair), not this counter.
    if (/\/(AddOrder|CancelOrder|EditOrder|CancelAll)\w*$/.test(request.path)) return account;
    const cost = /\/(TradesHistory|Ledgers|QueryLedgers|QueryTrades)$/.test(request.path) ? 2 : 1;
    if (!charge(key, cost)) {
      stats.limitAnswers += 1;
      return error('EAPI:Rate limit exceeded');
    }
    return account;
  }

  function publicRoute(request: LoopbackRequest): LoopbackReply {
    switch (request.path) {
      case '/0/public/Time':
        return ok({ unixtime: Math.floor(Date.now() / 1000), rfc1123: new Date().toUTCString() });
      case '/0/public/SystemStatus':
        return ok({ status: 'online', timestamp: new Date().toISOString() });
      case '/0/public/Assets':
        return ok(
          Object.fromEntries(
            Object.values(ASSETS).map((a) => [
              a.id,
              { aclass: 'currency', altname: a.altname, decimals: a.decimals, display_decimals: 5, status: 'enabled' },
            ]),
          ),
        );
      case '/0/public/AssetPairs':
        return ok(
          Object.fromEntries(
            SEED_MARKETS.map((m) => {
              const pair = pairOf(m);
              return [
                pair.id,
                {
                  altname: pair.altname,
                  wsname: `${ASSETS[m.base]!.altname}/${ASSETS[m.quote]!.altname}`,
                  aclass_base: 'currency',
                  base: ASSETS[m.base]!.id,
                  aclass_quote: 'currency',
                  quote: ASSETS[m.quote]!.id,
                  pair_decimals: m.quote === 'BTC' ? 5 : 1,
                  cost_decimals: 5,
                  lot_decimals: 8,
                  lot_multiplier: 1,
                  leverage_buy: [],
                  leverage_sell: [],
                  fees: [[0, 0.4]],
                  fees_maker: [[0, 0.25]],
                  fee_volume_currency: 'ZUSD',
                  margin_call: 80,
                  margin_stop: 40,
                  ordermin: '0.0001',
                  costmin: '0.5',
                  tick_size: m.quote === 'BTC' ? '0.00001' : '0.1',
                  status: 'online',
                },
              ];
            }),
          ),
        );
      case '/0/public/Ticker': {
        const wanted = (request.query.get('pair') ?? '').split(',');
        const found = SEED_MARKETS.filter((m) => wanted.includes(pairOf(m).id) || wanted.includes(pairOf(m).altname));
        if (found.length === 0) return error('EQuery:Unknown asset pair');
        return ok(
          Object.fromEntries(
            found.map((m) => [
              pairOf(m).id,
              {
                a: [m.ask, '1', '1.000'],
                b: [m.bid, '2', '2.000'],
                c: [m.last, '0.01'],
                v: ['120.5', '250.75'],
                p: [m.last, m.last],
                t: [1000, 2100],
                l: [(Number(m.last) * 0.97).toString(), (Number(m.last) * 0.95).toString()],
                h: [(Number(m.last) * 1.02).toString(), (Number(m.last) * 1.03).toString()],
                o: (Number(m.last) * 0.99).toString(),
              },
            ]),
          ),
        );
      }
      default:
        return error('EGeneral:Unknown method');
    }
  }

  function privateRoute(request: LoopbackRequest, account: VenueAccount): LoopbackReply {
    const form = new URLSearchParams(request.body);
    switch (request.path) {
      case '/0/private/Balance':
        return ok(Object.fromEntries(account.balances.map((b) => [ASSETS[b.currency]?.id ?? b.currency, total(b)])));
      case '/0/private/BalanceEx':
        return ok(
          Object.fromEntries(
            account.balances.map((b) => [
              ASSETS[b.currency]?.id ?? b.currency,
              { balance: total(b), hold_trade: b.locked },
            ]),
          ),
        );
      case '/0/private/TradesHistory': {
        const start = form.get('start');
        const end = form.get('end');
        const ofs = Number(form.get('ofs') ?? 0);
        const rows = newestFirst(account.fills).filter(
          (f) => (start === null || f.time / 1000 > Number(start)) && (end === null || f.time / 1000 <= Number(end)),
        );
        const page = rows.slice(ofs, ofs + PAGE);
        const trades = Object.fromEntries(page.map((f) => [f.id, krakenTrade(f, pairOf(f).id)]));
        return ok({ trades, count: rows.length });
      }
      default: {
        const pairs = SEED_MARKETS.map((m) => ({ base: m.base, quote: m.quote, ...pairOf(m) }));
        const now = Date.now() + clock.aheadMs;
        return krakenOrders(request.path, form, account, pairs, now) ?? error('EGeneral:Unknown method');
      }
    }
  }

  const loopback = await startLoopback((request) => {
    if (request.path.startsWith('/0/public/')) {
      // Every client of the fake comes from 127.0.0.1: one IP, one counter.
      if (!charge('public ip', 1, publicCounter)) {
        stats.publicLimitAnswers += 1;
        return { status: 429, body: { error: ['EGeneral:Too many requests'], result: {} } };
      }
      return publicRoute(request);
    }
    if (request.path.startsWith('/0/private/') && request.method === 'POST') {
      const authenticated = authenticate(request);
      if ('body' in authenticated) return authenticated;
      return privateRoute(request, authenticated);
    }
    return { status: 404, body: { error: ['EGeneral:Unknown method'] } };
  });

  return Object.assign(loopback, {
    counter,
    clock,
    publicCounter,
    stats,
    acceptedNonce(apiKey: string, nonce?: bigint) {
      if (nonce !== undefined) nonces.set(apiKey, nonce);
      return nonces.get(apiKey);
    },
    addAccount(account: VenueAccount) {
      accounts.set(account.apiKey, account);
      return account;
    },
    cross: (base: string, quote: string, price: string, upTo?: string) =>
      crossResting(accounts.values(), base, quote, price, KRAKEN_FILLS, upTo),
  });
}

function total(balance: { free: string; locked: string }): string {
  return (Number(balance.free) + Number(balance.locked)).toFixed(8);
}
