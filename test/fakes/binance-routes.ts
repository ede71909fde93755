// The spot endpoints of the Binance fake (Binance's spot API documentation), with Binance's request
// weights: public market data (ping, time, exchangeInfo, tickers, avgPrice, klines, depth) and the
// signed account endpoints (account, myTrades, deposit and withdrawal history). SAPI endpoints are in
// binance-sapi.ts.
import { bookFor, type FakeSymbol, klinesFor, ticker24hr } from './binance-market-data.ts';
import type { BinanceFake, FakeAccount, FakeReply, FakeRequest } from './binance.ts';
import { binanceError } from './binance-shapes.ts';

/** Binance's longest window of deposit and withdrawal history in one request. */
const CAPITAL_WINDOW_MS = 90 * 86_400_000;

function symbolOf(fake: BinanceFake, name: string | null): FakeSymbol | undefined {
  return fake.symbols.find((s) => s.symbol === name);
}

/** `symbol` or `symbols=["A","B"]`, as Binance reads them; an error reply for unknown ones. */
function selectSymbols(fake: BinanceFake, params: URLSearchParams): FakeSymbol[] | FakeReply {
  const one = params.get('symbol');
  const many = params.get('symbols');
  if (one && many)
    return {
      status: 400,
      body: binanceError(-1102, "Param 'symbol' or 'symbols' must be sent, but both were provided."),
    };
  const names = one ? [one] : many ? (JSON.parse(many) as string[]) : fake.symbols.map((s) => s.symbol);
  const found = names.map((n) => symbolOf(fake, n));
  if (found.some((s) => !s)) return { status: 400, body: binanceError(-1121, 'Invalid symbol.') };
  return found as FakeSymbol[];
}

/** GET /api/v3/ping, time, exchangeInfo, ticker/24hr, ticker/price, avgPrice, klines and depth. */
export function registerMarketRoutes(fake: BinanceFake): void {
  const list = (params: URLSearchParams, map: (s: FakeSymbol) => unknown): FakeReply => {
    const selected = selectSymbols(fake, params);
    if (!Array.isArray(selected)) return selected;
    const rows = selected.map(map);
    return { body: params.get('symbol') ? rows[0] : rows };
  };
  fake.route('GET', '/api/v3/ping', () => ({ body: {} }));
  fake.route('GET', '/api/v3/time', () => ({ body: { serverTime: fake.now() } }));
  fake.route(
    'GET',
    '/api/v3/exchangeInfo',
    (r) => {
      const selected = selectSymbols(fake, r.params);
      if (!Array.isArray(selected)) return selected;
      return {
        body: {
          timezone: 'UTC',
          serverTime: fake.now(),
          rateLimits: [
            { rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit: fake.weightLimit },
            { rateLimitType: 'ORDERS', interval: 'SECOND', intervalNum: 10, limit: 100 },
            { rateLimitType: 'RAW_REQUESTS', interval: 'MINUTE', intervalNum: 5, limit: 61000 },
          ],
          exchangeFilters: [],
          symbols: selected.map((s) => s.info),
        },
      };
    },
    { weight: 20 },
  );
  fake.route('GET', '/api/v3/ticker/24hr', (r) => list(r.params, (s) => ticker24hr(s, fake.now())), {
    weight: ticker24hrWeight,
  });
  fake.route('GET', '/api/v3/ticker/price', (r) => list(r.params, (s) => ({ symbol: s.symbol, price: s.price })), {
    weight: (r) => (r.params.has('symbol') ? 2 : 4),
  });
  fake.route('GET', '/api/v3/avgPrice', (r) => {
    const s = symbolOf(fake, r.params.get('symbol'));
    return s
      ? { body: { mins: 5, price: s.price, closeTime: fake.now() } }
      : { status: 400, body: binanceError(-1121, 'Invalid symbol.') };
  });
  fake.route(
    'GET',
    '/api/v3/klines',
    (r) => {
      const s = symbolOf(fake, r.params.get('symbol'));
      if (!s) return { status: 400, body: binanceError(-1121, 'Invalid symbol.') };
      const rows = klinesFor(s, {
        interval: r.params.get('interval') ?? '',
        startTime: r.params.has('startTime') ? Number(r.params.get('startTime')) : undefined,
        endTime: r.params.has('endTime') ? Number(r.params.get('endTime')) : undefined,
        limit: Math.min(Number(r.params.get('limit') ?? 500), 1000),
        now: fake.now(),
      });
      return rows ? { body: rows } : { status: 400, body: binanceError(-1120, 'Invalid interval.') };
    },
    { weight: 2 },
  );
  fake.route(
    'GET',
    '/api/v3/depth',
    (r) => {
      const s = symbolOf(fake, r.params.get('symbol'));
      if (!s) return { status: 400, body: binanceError(-1121, 'Invalid symbol.') };
      return { body: bookFor(s, Math.min(Number(r.params.get('limit') ?? 100), 5000)) };
    },
    { weight: depthWeight },
  );
}

/** The signed GET /api/v3/account and myTrades, and the deposit and withdrawal history. */
export function registerAccountRoutes(fake: BinanceFake): void {
  fake.route(
    'GET',
    '/api/v3/account',
    (r) => {
      const account = r.account!;
      const omitZero = r.params.get('omitZeroBalances') === 'true';
      return {
        body: {
          makerCommission: 10,
          takerCommission: 10,
          buyerCommission: 0,
          sellerCommission: 0,
          commissionRates: { maker: '0.00100000', taker: '0.00100000', buyer: '0.00000000', seller: '0.00000000' },
          canTrade: account.canTrade ?? true,
          canWithdraw: account.canWithdraw ?? false,
          canDeposit: true,
          brokered: false,
          requireSelfTradePrevention: false,
          preventSor: false,
          updateTime: fake.now(),
          accountType: 'SPOT',
          balances: account.balances.filter((b) => !omitZero || Number(b.free) + Number(b.locked) > 0),
          permissions: ['SPOT'],
          uid: 354937868,
        },
      };
    },
    { signed: true, weight: 20 },
  );
  // Deposit and withdrawal history: at most 90 days between startTime and endTime (Binance's
  // -1127); without them the last 90 days; with startTime only, 90 days from it. Newest first.
  const capitalHistory =
    (
      rows: (account: FakeAccount) => Record<string, unknown>[] | undefined,
      timeOf: (row: Record<string, unknown>) => number,
    ) =>
    (r: FakeRequest): FakeReply => {
      const number = (name: string) => (r.params.has(name) ? Number(r.params.get(name)) : undefined);
      let [startTime, endTime] = [number('startTime'), number('endTime')];
      if (startTime !== undefined && endTime !== undefined && endTime - startTime > CAPITAL_WINDOW_MS) {
        return { status: 400, body: binanceError(-1127, 'More than 90 days between startTime and endTime.') };
      }
      if (startTime === undefined && endTime === undefined) endTime = fake.now();
      if (startTime === undefined) startTime = endTime! - CAPITAL_WINDOW_MS;
      if (endTime === undefined) endTime = startTime + CAPITAL_WINDOW_MS;
      const limit = Math.min(number('limit') ?? 1000, 1000);
      const inWindow = (rows(r.account!) ?? []).filter((row) => timeOf(row) >= startTime! && timeOf(row) <= endTime!);
      return { body: inWindow.sort((a, b) => timeOf(b) - timeOf(a)).slice(0, limit) };
    };
  fake.route(
    'GET',
    '/sapi/v1/capital/deposit/hisrec',
    capitalHistory(
      (a) => a.deposits,
      (row) => Number(row.insertTime),
    ),
    { signed: true, weight: 1 },
  );
  fake.route(
    'GET',
    '/sapi/v1/capital/withdraw/history',
    capitalHistory(
      (a) => a.withdrawals,
      (row) => Date.parse(`${String(row.applyTime).replace(' ', 'T')}Z`),
    ),
    { signed: true, weight: 1 },
  );
  fake.route(
    'GET',
    '/api/v3/myTrades',
    (r) => {
      const symbol = r.params.get('symbol');
      if (!symbol)
        return {
          status: 400,
          body: binanceError(-1102, "Mandatory parameter 'symbol' was not sent, was empty/null, or malformed."),
        };
      if (!symbolOf(fake, symbol)) return { status: 400, body: binanceError(-1121, 'Invalid symbol.') };
      const number = (name: string) => (r.params.has(name) ? Number(r.params.get(name)) : undefined);
      const [startTime, endTime, fromId] = [number('startTime'), number('endTime'), number('fromId')];
      const limit = Math.min(number('limit') ?? 500, 1000);
      if (startTime !== undefined && endTime !== undefined && endTime - startTime > 24 * 3_600_000) {
        return { status: 400, body: binanceError(-1127, 'More than 24 hours between startTime and endTime.') };
      }
      const orderId = r.params.get('orderId');
      const all = [...(r.account!.trades[symbol] ?? [])]
        .filter((t) => orderId === null || String(t.orderId) === orderId)
        .sort((a, b) => Number(a.id) - Number(b.id));
      // Binance: from fromId, or from startTime, the first `limit` trades on; with neither, the most
      // recent `limit` (up to endTime). Oldest first either way.
      if (fromId !== undefined) return { body: all.filter((t) => Number(t.id) >= fromId).slice(0, limit) };
      const inWindow = all.filter(
        (t) =>
          (startTime === undefined || Number(t.time) >= startTime) &&
          (endTime === undefined || Number(t.time) <= endTime),
      );
      return { body: startTime !== undefined ? inWindow.slice(0, limit) : inWindow.slice(-limit) };
    },
    { signed: true, weight: 20 },
  );
}

/** Binance's weight of GET /api/v3/ticker/24hr: it grows with the number of symbols asked for. */
function ticker24hrWeight(request: FakeRequest): number {
  if (request.params.has('symbol')) return 2;
  const many = request.params.get('symbols');
  if (!many) return 80;
  const count = (JSON.parse(many) as unknown[]).length;
  return count <= 20 ? 2 : count <= 100 ? 40 : 80;
}

/** Binance's weight of GET /api/v3/depth by `limit`. */
function depthWeight(request: FakeRequest): number {
  const limit = Number(request.params.get('limit') ?? 100);
  return limit <= 100 ? 5 : limit <= 500 ? 25 : limit <= 1000 ? 50 : 250;
}
