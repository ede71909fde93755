// A loopback Bybit v5 REST server (PROTOCOLS B11): `{retCode, retMsg, result, retExtInfo, time}`;
// private calls signed with X-BAPI-API-KEY, X-BAPI-TIMESTAMP, X-BAPI-RECV-WINDOW and X-BAPI-SIGN =
// hex HMAC-SHA256(timestamp + key + recvWindow + query | body), valid while server − recvWindow ≤
// timestamp < server + 1000 (10002), unknown key 10003, bad sign 10004. Limits per UID (every key of
// one account counts on the same ones), endpoint and second, with X-Bapi-Limit* headers on every private
// answer; above them retCode 10006 "Too many visits!". `user/query-api` tells a key's `userID`. Only the spot
// category has instruments and executions (a spot account): linear answers empty lists.
// execution/list answers newest first in a window of at most 7 days (startTime alone: the 7 days
// after it; neither: the last 7), `limit` ≤ 100, paged by an opaque `cursor`.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { BYBIT_FILLS, bybitOrders } from './bybit-orders.ts';
import {
  crossResting,
  fillCost,
  newestFirst,
  SEED_MARKETS,
  startLoopback,
  type Loopback,
  type LoopbackReply,
  type LoopbackRequest,
  type VenueAccount,
} from './venue-loopback.ts';

export interface BybitFake extends Loopback {
  /** A key of account `uid` (a new account of its own unless given): keys of one UID share its limits. */
  addAccount(account: VenueAccount, options?: { uid?: number }): VenueAccount;
  /** Requests per second per UID and endpoint (Bybit's documented figures, lowered by tests). */
  limits: Record<string, number>;
  /** Answers of the venue's own limit this fake gave (injected failures not counted). */
  stats: { limitAnswers: number };
  /**
   * The last price of base/quote went through `price`: resting limits it crosses fill (each at most
   * `upTo`, when given); answers how many.
   */
  cross(base: string, quote: string, price: string, upTo?: string): number;
}

const WEEK = 7 * 86_400_000;
const envelope = (result: unknown, retCode = 0, retMsg = 'OK', headers?: Record<string, string>): LoopbackReply => ({
  body: { retCode, retMsg, result, retExtInfo: {}, time: Date.now() },
  headers,
});
const symbolOf = (m: { base: string; quote: string }) => `${m.base}${m.quote}`;

export async function startBybitFake(): Promise<BybitFake> {
  const accounts = new Map<string, VenueAccount>();
  const uids = new Map<string, number>();
  let lastUid = 24_600_000;
  const seconds = new Map<string, { second: number; count: number }>();
  const stats = { limitAnswers: 0 };
  const limits: Record<string, number> = {
    '/v5/account/wallet-balance': 50,
    '/v5/execution/list': 50,
  };

  function authenticate(request: LoopbackRequest): VenueAccount | LoopbackReply {
    const key = String(request.headers['x-bapi-api-key'] ?? '');
    const account = accounts.get(key);
    if (!account) return envelope({}, 10003, 'API key is invalid.');
    const timestamp = Number(request.headers['x-bapi-timestamp']);
    const recvWindow = Number(request.headers['x-bapi-recv-window'] ?? 5000);
    const now = Date.now();
    if (!Number.isFinite(timestamp) || timestamp < now - recvWindow || timestamp >= now + 1000)
      return envelope(
        {},
        10002,
        `invalid request, please check your server timestamp or recv_window param. req_timestamp[${timestamp}],server_timestamp[${now}],recv_window[${recvWindow}]`,
      );
    const payload = request.method === 'GET' ? request.rawQuery : request.body;
    const origin = `${request.headers['x-bapi-timestamp']}${key}${request.headers['x-bapi-recv-window'] ?? ''}${payload}`;
    const expected = createHmac('sha256', account.secret).update(origin).digest();
    const given = Buffer.from(String(request.headers['x-bapi-sign'] ?? ''), 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return envelope({}, 10004, `error sign! origin_string[${origin}]`);
    return account;
  }

  /**
   * Bybit's limit of an endpoint for the key's UID, with the headers it sends on every private answer:
   * the limit, the calls left, and when the window resets once it is exceeded (else the current time).
   */
  function limitHeaders(account: VenueAccount, path: string): { headers: Record<string, string>; over: boolean } {
    const limit = limits[path] ?? 50;
    const now = Date.now();
    const second = Math.floor(now / 1000);
    const key = `${uids.get(account.apiKey)} ${path}`;
    const state = seconds.get(key);
    const count = state && state.second === second ? state.count + 1 : 1;
    seconds.set(key, { second, count });
    const over = count > limit;
    return {
      over,
      headers: {
        'x-bapi-limit': String(limit),
        'x-bapi-limit-status': String(Math.max(0, limit - count)),
        'x-bapi-limit-reset-timestamp': String(over ? (second + 1) * 1000 : now),
      },
    };
  }

  function publicRoute(request: LoopbackRequest): LoopbackReply {
    const { path, query } = request;
    const category = query.get('category');
    if (path === '/v5/market/time') {
      const now = Date.now();
      return envelope({ timeSecond: String(Math.floor(now / 1000)), timeNano: `${now}000000` });
    }
    if (path === '/v5/market/instruments-info') {
      if (category !== 'spot') return envelope({ category, list: [], nextPageCursor: '' });
      const list = SEED_MARKETS.map((m) => ({
        symbol: symbolOf(m),
        baseCoin: m.base,
        quoteCoin: m.quote,
        innovation: '0',
        status: 'Trading',
        marginTrading: 'both',
        stTag: '0',
        lotSizeFilter: {
          basePrecision: '0.000001',
          quotePrecision: '0.00000001',
          minOrderQty: '0.000048',
          maxOrderQty: '71.73956243',
          minOrderAmt: '1',
          maxOrderAmt: '2000000',
        },
        priceFilter: { tickSize: m.quote === 'BTC' ? '0.00001' : '0.01' },
      }));
      return envelope({ category: 'spot', list, nextPageCursor: '' });
    }
    if (path === '/v5/market/tickers') {
      if (category !== 'spot') return envelope({ category, list: [] });
      const wanted = query.get('symbol');
      const found = SEED_MARKETS.filter((m) => !wanted || symbolOf(m) === wanted);
      if (found.length === 0) return envelope({}, 10001, 'Not supported symbols');
      const list = found.map((m) => {
        const last = Number(m.last);
        return {
          symbol: symbolOf(m),
          bid1Price: m.bid,
          bid1Size: '2',
          ask1Price: m.ask,
          ask1Size: '1',
          lastPrice: m.last,
          prevPrice24h: String(last * 0.99),
          price24hPcnt: '0.0101',
          highPrice24h: String(last * 1.02),
          lowPrice24h: String(last * 0.97),
          turnover24h: String(last * 250.75),
          volume24h: '250.75',
          usdIndexPrice: m.last,
        };
      });
      return envelope({ category: 'spot', list });
    }
    return { status: 404, body: { retCode: 10001, retMsg: 'Route not found' } };
  }

  function executions(account: VenueAccount, query: URLSearchParams): LoopbackReply {
    if (query.get('category') !== 'spot')
      return envelope({ category: query.get('category'), list: [], nextPageCursor: '' });
    const start = query.get('startTime');
    const end = query.get('endTime');
    let from: number;
    let to: number;
    if (start && end) {
      [from, to] = [Number(start), Number(end)];
      if (to - from > WEEK)
        return envelope({}, 10001, 'The time range between startTime and endTime must be within 7 days');
    } else if (start) [from, to] = [Number(start), Number(start) + WEEK];
    else if (end) [from, to] = [Number(end) - WEEK, Number(end)];
    else [from, to] = [Date.now() - WEEK, Date.now()];
    const limit = Math.min(100, Number(query.get('limit') ?? 50));
    const offset = query.get('cursor') ? Number(Buffer.from(query.get('cursor')!, 'base64url').toString()) : 0;
    const symbol = query.get('symbol');
    const orderId = query.get('orderId');
    const orderLinkId = query.get('orderLinkId');
    const rows = newestFirst(account.fills).filter(
      (f) =>
        (!symbol || symbolOf(f) === symbol) &&
        (!orderId || f.orderId === orderId) &&
        (!orderLinkId || f.clientId === orderLinkId) &&
        f.time >= from &&
        f.time <= to,
    );
    const page = rows.slice(offset, offset + limit);
    const more = offset + limit < rows.length;
    return envelope({
      category: 'spot',
      nextPageCursor: more ? Buffer.from(String(offset + limit)).toString('base64url') : '',
      list: page.map((f) => ({
        symbol: symbolOf(f),
        orderId: f.orderId,
        orderLinkId: f.clientId ?? '',
        side: f.side === 'buy' ? 'Buy' : 'Sell',
        orderPrice: f.price,
        orderQty: f.amount,
        leavesQty: '0',
        createType: 'CreateByUser',
        orderType: 'Limit',
        stopOrderType: '',
        execFee: f.fee,
        // Bybit charges a spot buy's fee in the coin bought, a sell's in the quote coin.
        feeCurrency: f.side === 'buy' ? f.base : f.quote,
        execId: f.id,
        execPrice: f.price,
        execQty: f.amount,
        execType: 'Trade',
        execValue: fillCost(f),
        execTime: String(f.time),
        feeRate: '0.001',
        isMaker: f.maker === true,
        markPrice: '',
        indexPrice: '',
        underlyingPrice: '',
        blockTradeId: '',
        closedSize: '',
        seq: Number(f.id.replace(/\D/g, '')),
      })),
    });
  }

  /** The key's own description, as Bybit answers it to the key itself. */
  function keyInfo(account: VenueAccount): LoopbackReply {
    const uid = uids.get(account.apiKey)!;
    return envelope({
      id: String(uid % 100_000_000),
      note: 'platform',
      apiKey: account.apiKey,
      readOnly: 0,
      secret: '',
      permissions: { ContractTrade: [], Spot: ['SpotTrade'], Wallet: ['AccountTransfer'], Options: [] },
      ips: ['*'],
      type: 1,
      deadlineDay: 83,
      expiredAt: new Date(Date.now() + 83 * 86_400_000).toISOString().replace(/\.\d{3}/, ''),
      createdAt: new Date(Date.now() - 7 * 86_400_000).toISOString().replace(/\.\d{3}/, ''),
      unified: 0,
      uta: 1,
      userID: uid,
      inviterID: 0,
      vipLevel: 'No VIP',
      mktMakerLevel: '0',
      affiliateID: 0,
      rsaPublicKey: '',
      isMaster: true,
      parentUid: '0',
    });
  }

  function privateRoute(request: LoopbackRequest, account: VenueAccount): LoopbackReply {
    if (request.path === '/v5/account/wallet-balance') {
      const coin = account.balances.map((b) => {
        const total = (Number(b.free) + Number(b.locked)).toFixed(8);
        return {
          coin: b.currency,
          equity: total,
          walletBalance: total,
          free: b.free,
          locked: b.locked,
          availableToWithdraw: b.free,
          usdValue: '0',
          borrowAmount: '0',
          accruedInterest: '0',
          totalOrderIM: '0',
          totalPositionIM: '0',
          unrealisedPnl: '0',
          cumRealisedPnl: '0',
        };
      });
      return envelope({ list: [{ accountType: 'UNIFIED', totalEquity: '0', coin }] });
    }
    if (request.path === '/v5/execution/list') return executions(account, request.query);
    if (request.path === '/v5/account/info')
      return envelope({ unifiedMarginStatus: 5, marginMode: 'REGULAR_MARGIN', updatedTime: String(Date.now()) });
    if (request.path === '/v5/user/query-api') return keyInfo(account);
    if (request.path === '/v5/asset/coin/query-info') return envelope({ rows: [] });
    const { method, path, query, body } = request;
    const order = bybitOrders(method, path, query, body, account, SEED_MARKETS);
    if (order) return order;
    return { status: 404, body: { retCode: 10001, retMsg: 'Route not found' } };
  }

  const loopback = await startLoopback((request) => {
    if (request.path === '/v5/system/status') return envelope({ list: [] });
    if (request.path.startsWith('/v5/market/')) return publicRoute(request);
    const authenticated = authenticate(request);
    if ('body' in authenticated) return authenticated;
    const { headers, over } = limitHeaders(authenticated, request.path);
    if (over) {
      stats.limitAnswers += 1;
      return envelope({}, 10006, 'Too many visits!', headers);
    }
    return { ...privateRoute(request, authenticated), headers };
  });

  return Object.assign(loopback, {
    limits,
    stats,
    addAccount(account: VenueAccount, options: { uid?: number } = {}) {
      accounts.set(account.apiKey, account);
      lastUid += 1;
      uids.set(account.apiKey, options.uid ?? lastUid);
      return account;
    },
    cross: (base: string, quote: string, price: string, upTo?: string) =>
      crossResting(accounts.values(), base, quote, price, BYBIT_FILLS, upTo),
  });
}
