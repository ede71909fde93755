// A loopback OKX v5 REST server (PROTOCOLS B10): `{code, msg, data}` envelopes; private calls signed
// with OK-ACCESS-KEY, OK-ACCESS-PASSPHRASE, OK-ACCESS-TIMESTAMP (ISO 8601, within 30 s) and
// OK-ACCESS-SIGN = base64(HMAC-SHA256(timestamp + METHOD + path?query + body)); auth failures are
// HTTP 401 (50111 key, 50113 sign, 50105 passphrase, 50102 timestamp). Rate limits per endpoint and
// key in 2-second windows: above them HTTP 429 `{"code":"50011","msg":"Too Many Requests"}`.
// trade/fills-history answers newest first, at most 100 (`limit`), `after`/`before` a billId, `begin`/`end` ms.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { OKX_FILLS, okxOrders } from './okx-orders.ts';
import {
  crossResting,
  newestFirst,
  SEED_MARKETS,
  startLoopback,
  type Loopback,
  type LoopbackReply,
  type LoopbackRequest,
  type VenueAccount,
  type VenueFill,
} from './venue-loopback.ts';

export interface OkxFake extends Loopback {
  addAccount(account: VenueAccount): VenueAccount;
  /** Requests allowed per endpoint and key in a 2-second window (OKX's documented figure per endpoint). */
  limits: Record<string, number>;
  /** Answers of the venue's own limit this fake gave (injected failures not counted). */
  stats: { limitAnswers: number };
  /**
   * The last price of base/quote went through `price`: resting limits it crosses fill (each at most
   * `upTo`, when given); answers how many.
   */
  cross(base: string, quote: string, price: string, upTo?: string): number;
}

const ok = (data: unknown[]): LoopbackReply => ({ body: { code: '0', msg: '', data } });
const fail = (status: number, code: string, msg: string): LoopbackReply => ({ status, body: { code, msg, data: [] } });
const instId = (m: { base: string; quote: string }) => `${m.base}-${m.quote}`;
/** OKX numbers bills with large integers that grow with time. */
const billId = (fill: VenueFill) => `${fill.time}${fill.id.replace(/\D/g, '').padStart(5, '0').slice(-5)}`;

function ticker(m: (typeof SEED_MARKETS)[number]) {
  const last = Number(m.last);
  return {
    instType: 'SPOT',
    instId: instId(m),
    last: m.last,
    lastSz: '0.01',
    askPx: m.ask,
    askSz: '1',
    bidPx: m.bid,
    bidSz: '2',
    open24h: String(last * 0.99),
    high24h: String(last * 1.02),
    low24h: String(last * 0.97),
    volCcy24h: String(last * 250.75),
    vol24h: '250.75',
    ts: String(Date.now()),
    sodUtc0: String(last * 0.99),
    sodUtc8: String(last * 0.99),
  };
}

export async function startOkxFake(): Promise<OkxFake> {
  const accounts = new Map<string, VenueAccount>();
  const windows = new Map<string, { start: number; count: number }>();
  const stats = { limitAnswers: 0 };
  const limits: Record<string, number> = {
    '/api/v5/account/balance': 10,
    '/api/v5/trade/fills-history': 10,
    '/api/v5/market/ticker': 20,
    '/api/v5/market/tickers': 20,
    '/api/v5/public/instruments': 20,
  };

  /** OKX's windows: a fixed count per endpoint and key (or IP for public calls) per 2 seconds. */
  function admit(who: string, path: string): boolean {
    const limit = limits[path];
    if (limit === undefined) return true;
    const key = `${who} ${path}`;
    const now = Date.now();
    const window = windows.get(key);
    if (!window || now - window.start >= 2000) {
      windows.set(key, { start: now, count: 1 });
      return true;
    }
    window.count += 1;
    if (window.count > limit) stats.limitAnswers += 1;
    return window.count <= limit;
  }

  function authenticate(request: LoopbackRequest): VenueAccount | LoopbackReply {
    const key = String(request.headers['ok-access-key'] ?? '');
    if (!key) return fail(401, '50103', 'Request header "OK-ACCESS-KEY" cannot be empty.');
    const account = accounts.get(key);
    if (!account) return fail(401, '50111', 'Invalid OK-ACCESS-KEY.');
    const timestamp = String(request.headers['ok-access-timestamp'] ?? '');
    const at = Date.parse(timestamp);
    if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(timestamp) || Number.isNaN(at))
      return fail(401, '50112', 'Invalid OK-ACCESS-TIMESTAMP.');
    if (Math.abs(Date.now() - at) > 30_000) return fail(401, '50102', 'Timestamp request expired.');
    const target = request.rawQuery ? `${request.path}?${request.rawQuery}` : request.path;
    const expected = createHmac('sha256', account.secret)
      .update(timestamp + request.method + target + request.body)
      .digest();
    const given = Buffer.from(String(request.headers['ok-access-sign'] ?? ''), 'base64');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return fail(401, '50113', 'Invalid Sign');
    if (String(request.headers['ok-access-passphrase'] ?? '') !== account.passphrase)
      return fail(401, '50105', 'Your OK-ACCESS-PASSPHRASE is incorrect.');
    return account;
  }

  function fills(account: VenueAccount, query: URLSearchParams): LoopbackReply {
    const limit = Math.min(100, Number(query.get('limit') ?? 100));
    const inst = query.get('instId');
    const ordId = query.get('ordId');
    const begin = query.get('begin');
    const end = query.get('end');
    const after = query.get('after');
    const before = query.get('before');
    let rows = newestFirst(account.fills).filter(
      (f) =>
        (!inst || instId(f) === inst) &&
        (!ordId || f.orderId === ordId) &&
        (begin === null || f.time >= Number(begin)) &&
        (end === null || f.time <= Number(end)),
    );
    if (after) rows = rows.filter((f) => BigInt(billId(f)) < BigInt(after));
    // `before` alone: the records just newer than the bill, still newest first.
    if (before) rows = rows.filter((f) => BigInt(billId(f)) > BigInt(before)).slice(-limit);
    return ok(
      rows.slice(0, limit).map((f) => ({
        instType: 'SPOT',
        instId: instId(f),
        tradeId: f.id,
        ordId: f.orderId,
        clOrdId: f.clientId ?? '',
        billId: billId(f),
        subType: f.side === 'buy' ? '1' : '2',
        tag: '',
        fillPx: f.price,
        fillSz: f.amount,
        fillIdxPx: '',
        fillPnl: '0',
        side: f.side,
        posSide: 'net',
        execType: f.maker ? 'M' : 'T',
        feeCcy: f.feeCurrency,
        fee: `-${f.fee}`,
        ts: String(f.time),
        fillTime: String(f.time),
      })),
    );
  }

  function route(request: LoopbackRequest): LoopbackReply {
    const { path, query } = request;
    if (path === '/api/v5/public/time') return ok([{ ts: String(Date.now()) }]);
    if (path === '/api/v5/system/status') return ok([]);
    if (path === '/api/v5/public/instruments') {
      if (query.get('instType') !== 'SPOT') return ok([]);
      return ok(
        SEED_MARKETS.map((m) => ({
          instType: 'SPOT',
          instId: instId(m),
          uly: '',
          instFamily: '',
          baseCcy: m.base,
          quoteCcy: m.quote,
          settleCcy: '',
          ctVal: '',
          ctMult: '',
          ctValCcy: '',
          listTime: '1606468572000',
          expTime: '',
          lever: '10',
          tickSz: m.quote === 'BTC' ? '0.00001' : '0.1',
          lotSz: '0.00000001',
          minSz: '0.00001',
          ctType: '',
          alias: '',
          state: 'live',
          maxLmtSz: '9999999999',
          maxMktSz: '1000000',
        })),
      );
    }
    if (path === '/api/v5/market/ticker') {
      const market = SEED_MARKETS.find((m) => instId(m) === query.get('instId'));
      return market ? ok([ticker(market)]) : fail(400, '51001', "Instrument ID doesn't exist.");
    }
    if (path === '/api/v5/market/tickers') return ok(SEED_MARKETS.map(ticker));
    return fail(404, '404', 'Not Found');
  }

  function privateRoute(request: LoopbackRequest, account: VenueAccount): LoopbackReply {
    if (request.path === '/api/v5/account/balance') {
      const details = account.balances.map((b) => {
        const total = (Number(b.free) + Number(b.locked)).toFixed(8);
        return {
          ccy: b.currency,
          eq: total,
          cashBal: total,
          availBal: b.free,
          availEq: b.free,
          frozenBal: b.locked,
          ordFrozen: b.locked,
          uTime: String(Date.now()),
        };
      });
      return ok([{ totalEq: '0', details, uTime: String(Date.now()) }]);
    }
    if (request.path === '/api/v5/trade/fills-history' || request.path === '/api/v5/trade/fills')
      return fills(account, request.query);
    if (request.path === '/api/v5/asset/currencies') return ok([]);
    const { method, path, query, body } = request;
    return okxOrders(method, path, query, body, account, SEED_MARKETS) ?? fail(404, '404', 'Not Found');
  }

  const loopback = await startLoopback((request) => {
    const isPrivate = request.headers['ok-access-key'] !== undefined || /\/(account|trade|asset)\//.test(request.path);
    if (!isPrivate) return admit('ip', request.path) ? route(request) : fail(429, '50011', 'Too Many Requests');
    const authenticated = authenticate(request);
    if ('body' in authenticated) return authenticated;
    if (!admit(authenticated.apiKey, request.path)) return fail(429, '50011', 'Too Many Requests');
    return privateRoute(request, authenticated);
  });

  return Object.assign(loopback, {
    limits,
    stats,
    addAccount(account: VenueAccount) {
      accounts.set(account.apiKey, account);
      return account;
    },
    cross: (base: string, quote: string, price: string, upTo?: string) =>
      crossResting(accounts.values(), base, quote, price, OKX_FILLS, upTo),
  });
}
