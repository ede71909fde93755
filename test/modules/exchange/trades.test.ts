import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { exchangeTrades } from '../../../src/modules/exchange/exchange.tables.ts';
import { binanceTrade, type FakeAccount } from '../../fakes/binance.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { addAccount, extraMarket, startVenueFakes, type VenueFakes } from './venue-fakes.ts';

const day = (d: number, h = 12) => Date.UTC(2026, 0, d, h);
/** 22 currencies ahead of XRP in the alphabet, each with one market on the fake: more than a sync asks. */
const SMALL_HOLDINGS = Array.from({ length: 22 }, (_, i) => `AA${String.fromCharCode(65 + i)}`);

describe('exchange trades', () => {
  let fakes: VenueFakes;
  let t: TestApp;
  let user: TestUser;
  let account: FakeAccount;

  before(async () => {
    fakes = await startVenueFakes({ extraBinanceMarkets: SMALL_HOLDINGS.map((base) => extraMarket(base)) });
    t = await buildTestApp({ env: fakes.env() });
    user = await signIn(t.app, t.database);
    account = addAccount(fakes.binance, {
      trades: {
        BTCUSDT: [
          binanceTrade({
            symbol: 'BTCUSDT',
            id: 101,
            price: '65000.10',
            qty: '0.01000000',
            isBuyer: true,
            time: day(2),
          }),
          binanceTrade({
            symbol: 'BTCUSDT',
            id: 102,
            price: '65100.20',
            qty: '0.00500000',
            isBuyer: false,
            time: day(3),
            commission: '0.32550100',
            commissionAsset: 'USDT',
          }),
        ],
        // Binance numbers each symbol's trades on its own: id 101 exists on both pairs.
        ETHUSDT: [
          binanceTrade({
            symbol: 'ETHUSDT',
            id: 101,
            price: '3200.00',
            qty: '0.10000000',
            isBuyer: true,
            time: day(4),
          }),
        ],
        XRPUSDT: [
          binanceTrade({
            symbol: 'XRPUSDT',
            id: 1,
            price: '0.1',
            qty: '1',
            isBuyer: true,
            time: day(5),
            commission: '0.1',
            commissionAsset: 'USDT',
          }),
          binanceTrade({
            symbol: 'XRPUSDT',
            id: 2,
            price: '0.2',
            qty: '1',
            isBuyer: false,
            time: day(6),
            commission: '0.2',
            commissionAsset: 'USDT',
          }),
        ],
      },
    });
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/exchange/credentials',
      headers: user.headers,
      payload: { exchange_name: 'binance', api_key: account.apiKey, api_secret: account.secret },
    });
    assert.equal(created.statusCode, 201);
  });
  after(async () => {
    await t.close();
    await fakes.close();
  });

  const call = (method: 'GET' | 'POST', url: string, who: TestUser | null = user) =>
    t.app.inject({ method, url, headers: who?.headers ?? {} });
  /** The trades stored for `who`, as the trade list shows them. */
  const stored = async (who: TestUser = user, query = '') => {
    const response = await call('GET', `/api/exchange/trades?exchange=binance&limit=1000${query}`, who);
    assert.equal(response.statusCode, 200, response.body);
    return response.json().trades as {
      exchange_trade_id: string;
      symbol: string;
      side: string;
      price: number | null;
      fee: number;
      fee_currency: string;
      sync_status: string;
    }[];
  };

  describe('POST /api/exchange/trades/sync', () => {
    it("stores a symbol's trades and counts a repeated sync as duplicates, never inserting twice", async () => {
      const first = (await call('POST', '/api/exchange/trades/sync?exchange=binance&symbol=BTCUSDT')).json();
      assert.equal(first.success, true);
      assert.equal(first.symbol, 'BTC/USDT');
      assert.equal(first.trades_synced, 2);
      assert.equal(first.trades_duplicate, 0);
      assert.equal(first.error_type, null);
      const again = (await call('POST', '/api/exchange/trades/sync?exchange=binance&symbol=btc-usdt')).json();
      assert.deepEqual(
        [again.trades_synced, again.trades_duplicate],
        [0, 0],
        'continues after the newest stored trade: nothing new',
      );
      const fromStart = (
        await call(
          'POST',
          `/api/exchange/trades/sync?exchange=binance&symbol=BTCUSDT&since=${new Date(day(1)).toISOString()}`,
        )
      ).json();
      assert.equal(fromStart.trades_synced, 0);
      assert.equal(fromStart.trades_duplicate, 2, 'asked again from an earlier instant, both are already stored');
      const rows = await stored();
      assert.equal(rows.length, 2);
      const sell = rows.find((r) => r.exchange_trade_id === '102')!;
      assert.equal(sell.side, 'sell');
      assert.equal(sell.price, 65100.2);
      assert.equal(sell.fee, 0.325501);
      assert.equal(sell.fee_currency, 'USDT');
      assert.equal(sell.sync_status, 'synced');
      // The API answers numbers; that price and fee are kept as exact numerics shows only at rest.
      const [exact] = await t.database.db
        .select()
        .from(exchangeTrades)
        .where(and(eq(exchangeTrades.userId, user.id), eq(exchangeTrades.exchangeTradeId, '102')));
      assert.equal(exact!.price, '65100.200000000000000000');
      assert.equal(exact!.fee, '0.325501000000000000');
      const admin = await signIn(t.app, t.database, { role: 'admin' });
      const activity = (await call('GET', `/api/admin/users/${user.id}/activity?limit=100`, admin)).json() as {
        action: string;
        details: { trades_duplicate?: number };
      }[];
      assert.equal(activity.find((a) => a.action === 'exchange.trades.sync')!.details.trades_duplicate, 2);
    });

    it('keeps the same venue id on two pairs as two trades', async () => {
      const body = (await call('POST', '/api/exchange/trades/sync?exchange=binance&symbol=ETH/USDT')).json();
      assert.equal(body.trades_synced, 1);
      const ids = (await stored())
        .filter((r) => r.exchange_trade_id === '101')
        .map((r) => r.symbol)
        .sort();
      assert.deepEqual(ids, ['BTC/USDT', 'ETH/USDT']);
    });

    it('honours since and limit', async () => {
      const other = await signIn(t.app, t.database);
      await t.app.inject({
        method: 'POST',
        url: '/api/exchange/credentials',
        headers: other.headers,
        payload: { exchange_name: 'binance', api_key: account.apiKey, api_secret: account.secret },
      });
      const since = new Date(day(3, 0)).toISOString();
      const late = (
        await call('POST', `/api/exchange/trades/sync?exchange=binance&symbol=BTCUSDT&since=${since}`, other)
      ).json();
      assert.equal(late.trades_synced, 1);
      const request = fakes.binance.requests.filter((r) => r.path === '/api/v3/myTrades').at(-1)!;
      assert.equal(request.params.get('startTime'), String(day(3, 0)));
      const limited = (
        await call('POST', '/api/exchange/trades/sync?exchange=binance&symbol=XRPUSDT&limit=1', other)
      ).json();
      assert.equal(limited.trades_synced, 1);
      assert.equal(limited.has_more, true, 'the page of one was full');
      assert.deepEqual(limited.markets[0].next_cursor, { from_id: '2', since: null });
      const limitedRequest = fakes.binance.requests.filter((r) => r.path === '/api/v3/myTrades').at(-1)!;
      assert.equal(limitedRequest.params.get('limit'), '1');
      // A first sync starts at the horizon (365 days back), oldest first: the older trade comes first.
      const horizon = Number(limitedRequest.params.get('startTime'));
      assert.ok(Math.abs(horizon - (Date.now() - 365 * 86_400_000)) < 60_000, 'startTime is the horizon');
      const xrp = await stored(other, '&symbol=XRP/USDT');
      assert.deepEqual(
        xrp.map((r) => r.exchange_trade_id),
        ['1'],
      );
      const next = (
        await call('POST', '/api/exchange/trades/sync?exchange=binance&symbol=XRPUSDT&limit=1', other)
      ).json();
      assert.equal(next.trades_synced, 1, 'the next sync continues after the stored one');
      assert.equal(
        fakes.binance.requests
          .filter((r) => r.path === '/api/v3/myTrades')
          .at(-1)!
          .params.get('fromId'),
        '2',
      );
      const done = (
        await call('POST', '/api/exchange/trades/sync?exchange=binance&symbol=XRPUSDT&limit=1', other)
      ).json();
      assert.deepEqual([done.trades_synced, done.trades_duplicate, done.has_more], [0, 0, false]);
      assert.deepEqual(done.markets[0].next_cursor, { from_id: '3', since: null }, 'an empty page keeps the cursor');
    });

    it('stores all of 250 new trades with limit=100 over repeated syncs, none skipped, has_more until the last', async () => {
      const busy = await signIn(t.app, t.database);
      const base = Date.now() - 3 * 86_400_000;
      const many = (from: number, count: number) =>
        Array.from({ length: count }, (_, i) =>
          binanceTrade({
            symbol: 'SOLUSDT',
            id: 5000 + (from + i) * 7,
            price: '150.5',
            qty: '1',
            isBuyer: i % 2 === 0,
            time: base + (from + i) * 60_000,
          }),
        );
      const trader = addAccount(fakes.binance, { trades: { SOLUSDT: many(0, 10) } });
      await t.app.inject({
        method: 'POST',
        url: '/api/exchange/credentials',
        headers: busy.headers,
        payload: { exchange_name: 'binance', api_key: trader.apiKey, api_secret: trader.secret },
      });
      const sync = async () =>
        (await call('POST', '/api/exchange/trades/sync?exchange=binance&symbol=SOLUSDT&limit=100', busy)).json();
      assert.equal((await sync()).trades_synced, 10);
      // 250 new trades between two syncs: more than one page.
      trader.trades.SOLUSDT!.push(...many(10, 250));
      const answers = [await sync(), await sync(), await sync()];
      assert.deepEqual(
        answers.map((a) => a.trades_synced),
        [100, 100, 50],
      );
      assert.deepEqual(
        answers.map((a) => a.has_more),
        [true, true, false],
      );
      assert.ok(
        answers.every((a) => a.trades_duplicate === 0),
        'no page overlaps the previous',
      );
      const listed = (
        await call('GET', '/api/exchange/trades?exchange=binance&symbol=SOLUSDT&limit=1000', busy)
      ).json();
      assert.equal(listed.total_records, 260);
      const ids = new Set(listed.trades.map((tr: { exchange_trade_id: string }) => tr.exchange_trade_id));
      assert.ok(
        trader.trades.SOLUSDT!.every((tr) => ids.has(String(tr.id))),
        'every trade the venue has is stored',
      );
      assert.equal((await sync()).trades_synced, 0);
    });

    it("without a symbol, asks every pair of the currencies held in the latest snapshot against the venue's quotes", async () => {
      account.balances = [
        { asset: 'XRP', free: '10.00000000', locked: '0.00000000' },
        { asset: 'USDT', free: '5.00000000', locked: '0.00000000' },
      ];
      assert.equal((await call('POST', '/api/exchange/balance/sync?exchange=binance')).json().success, true);
      const body = (await call('POST', '/api/exchange/trades/sync?exchange=binance')).json();
      assert.equal(body.success, true);
      assert.equal(body.symbol, null);
      assert.deepEqual(body.symbols_synced, ['XRP/USDT']);
      assert.equal(body.trades_synced, 2);
    });

    it("without a symbol and more than 20 markets held, asks the largest holdings' markets first, whatever their letter", async () => {
      const whale = await signIn(t.app, t.database);
      const holder = addAccount(fakes.binance, {
        balances: [
          ...SMALL_HOLDINGS.map((asset) => ({ asset, free: '1.00000000', locked: '0.00000000' })),
          { asset: 'XRP', free: '4000.00000000', locked: '1000.00000000' },
        ],
        trades: {
          XRPUSDT: [binanceTrade({ symbol: 'XRPUSDT', id: 9, price: '0.5', qty: '1000', isBuyer: true, time: day(8) })],
        },
      });
      await t.app.inject({
        method: 'POST',
        url: '/api/exchange/credentials',
        headers: whale.headers,
        payload: { exchange_name: 'binance', api_key: holder.apiKey, api_secret: holder.secret },
      });
      assert.equal(
        (await call('POST', '/api/exchange/balance/sync?exchange=binance', whale)).json().currencies_synced,
        23,
      );
      const body = (await call('POST', '/api/exchange/trades/sync?exchange=binance', whale)).json();
      assert.equal(body.success, true, body.error);
      assert.equal(body.symbols_synced.length, 20);
      assert.equal(body.symbols_synced[0], 'XRP/USDT');
      assert.deepEqual(
        body.symbols_synced.slice(1, 3),
        ['AAA/USDT', 'AAB/USDT'],
        'equal holdings in alphabetical order',
      );
      assert.equal(body.trades_synced, 1);
    });

    it('stores a trade the venue sent without a price as failed instead of dropping it', async () => {
      const broken = binanceTrade({ symbol: 'LTCUSDT', id: 7, price: '80', qty: '1', isBuyer: true, time: day(7) });
      delete broken.price;
      account.trades.LTCUSDT = [broken];
      const body = (await call('POST', '/api/exchange/trades/sync?exchange=binance&symbol=LTCUSDT')).json();
      assert.equal(body.trades_synced, 1);
      const [row] = await stored(user, '&symbol=LTC/USDT');
      assert.equal(row!.sync_status, 'failed');
      assert.equal(row!.price, null);
    });

    it('answers 404 for a pair the venue does not list, and 404 without a credential', async () => {
      const unknown = await call('POST', '/api/exchange/trades/sync?exchange=binance&symbol=FOOBAR');
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.json().detail, 'binance does not list FOOBAR');
      assert.equal((await call('POST', '/api/exchange/trades/sync?exchange=kraken&symbol=BTCUSDT')).statusCode, 404);
    });

    it('answers success false with error_type when the venue fails or refuses', async () => {
      fakes.binance.fail(
        500,
        { code: -1000, msg: 'An unknown error occurred while processing the request.' },
        { pathPrefix: '/api/v3/myTrades' },
      );
      const failed = (await call('POST', '/api/exchange/trades/sync?exchange=binance&symbol=BTCUSDT')).json();
      assert.equal(failed.success, false);
      assert.equal(failed.error_type, 'exchange');
      assert.match(failed.error, /unknown error/);
      fakes.binance.fail(
        401,
        { code: -2015, msg: 'Invalid API-key, IP, or permissions for action.' },
        { pathPrefix: '/api/v3/myTrades' },
      );
      const refused = (await call('POST', '/api/exchange/trades/sync?exchange=binance&symbol=BTCUSDT')).json();
      assert.equal(refused.error_type, 'auth');
    });

    it('validates its query and needs a bearer token', async () => {
      const invalid = await call('POST', '/api/exchange/trades/sync?exchange=binance&limit=0&since=last-week');
      assert.equal(invalid.statusCode, 422);
      const types = Object.fromEntries(
        (invalid.json().detail as { loc: string[]; type: string }[]).map((d) => [d.loc[1], d.type]),
      );
      assert.deepEqual(types, { since: 'datetime_from_date_parsing', limit: 'greater_than_equal' });
      assert.equal((await call('POST', '/api/exchange/trades/sync?exchange=binance&limit=1001')).statusCode, 422);
      assert.equal((await call('POST', '/api/exchange/trades/sync?exchange=binance', null)).statusCode, 401);
    });
  });

  describe('GET /api/exchange/trades', () => {
    it('lists stored trades newest first with total_records and has_more', async () => {
      const all = (await call('GET', '/api/exchange/trades?exchange=binance')).json();
      assert.equal(all.exchange, 'binance');
      assert.equal(all.total_records, 6);
      assert.equal(all.has_more, false);
      const times = all.trades.map((tr: { trade_timestamp: string }) => tr.trade_timestamp);
      assert.deepEqual([...times].sort().reverse(), times);
      assert.deepEqual(Object.keys(all.trades[0]).sort(), [
        'amount',
        'created_at',
        'exchange',
        'exchange_trade_id',
        'fee',
        'fee_currency',
        'id',
        'price',
        'side',
        'symbol',
        'sync_status',
        'total',
        'trade_timestamp',
      ]);

      const page = (await call('GET', '/api/exchange/trades?exchange=binance&limit=2&offset=2')).json();
      assert.equal(page.trades.length, 2);
      assert.equal(page.has_more, true);
      assert.equal(page.trades[0].id, all.trades[2].id);
      const last = (await call('GET', '/api/exchange/trades?exchange=binance&limit=2&offset=4')).json();
      assert.equal(last.has_more, false);
      const farPast = await call('GET', '/api/exchange/trades?exchange=binance&offset=1000000000000');
      assert.equal(farPast.statusCode, 200, 'the largest offset is past the end, not a database error');
      assert.deepEqual([farPast.json().trades, farPast.json().has_more], [[], false]);
      assert.equal(
        (await call('GET', '/api/exchange/trades?exchange=binance&offset=1e300')).statusCode,
        422,
        'beyond the bound (decision 098)',
      );
    });

    it('filters by symbol in any spelling and by dates', async () => {
      for (const symbol of ['BTCUSDT', 'btc-usdt', 'BTC/USDT']) {
        const body = (
          await call('GET', `/api/exchange/trades?exchange=binance&symbol=${encodeURIComponent(symbol)}`)
        ).json();
        assert.equal(body.total_records, 2, symbol);
        assert.equal(body.symbol, 'BTC/USDT');
      }
      const window = (
        await call(
          'GET',
          `/api/exchange/trades?exchange=binance&start_date=${new Date(day(3, 0)).toISOString()}&end_date=${new Date(day(4, 23)).toISOString()}`,
        )
      ).json();
      assert.deepEqual(
        window.trades.map((tr: { exchange_trade_id: string }) => tr.exchange_trade_id),
        ['101', '102'],
      );
    });

    it('shows nothing of another user, validates paging and needs a token', async () => {
      const stranger = await signIn(t.app, t.database);
      assert.equal((await call('GET', '/api/exchange/trades?exchange=binance', stranger)).json().total_records, 0);
      const invalid = await call('GET', '/api/exchange/trades?exchange=binance&offset=-1&limit=1001');
      assert.deepEqual((invalid.json().detail as { type: string }[]).map((d) => d.type).sort(), [
        'greater_than_equal',
        'less_than_equal',
      ]);
      assert.equal((await call('GET', '/api/exchange/trades?exchange=binance', null)).statusCode, 401);
    });
  });

  describe('GET /api/exchange/trades/stats', () => {
    it('counts trades and sums volume and fees exactly', async () => {
      const body = (
        await call(
          'GET',
          `/api/exchange/trades/stats?exchange=binance&start_date=${new Date(day(5, 0)).toISOString()}&end_date=${new Date(day(6, 23)).toISOString()}`,
        )
      ).json();
      // 0.1 + 0.2 in floating point would be 0.30000000000000004.
      assert.equal(body.total_volume, 0.3);
      assert.equal(body.total_fees, 0.3);
      assert.equal(body.total_trades, 2);
      assert.equal(body.buy_count, 1);
      assert.equal(body.sell_count, 1);
      assert.equal(body.first_trade, new Date(day(5)).toISOString());
      assert.equal(body.last_trade, new Date(day(6)).toISOString());
      assert.equal(body.start_date, new Date(day(5, 0)).toISOString());
      assert.equal(body.exchange, 'binance');
    });

    it('covers every venue without filters and counts failed rows', async () => {
      const body = (await call('GET', '/api/exchange/trades/stats')).json();
      assert.equal(body.total_trades, 6);
      assert.equal(body.synced_count, 5);
      assert.equal(body.failed_count, 1);
      assert.equal(body.exchange, null);
      assert.equal(body.start_date, null);
    });

    it('is empty for a user without trades, validates and needs a token', async () => {
      const stranger = await signIn(t.app, t.database);
      const empty = (await call('GET', '/api/exchange/trades/stats', stranger)).json();
      assert.equal(empty.total_trades, 0);
      assert.equal(empty.total_volume, 0);
      assert.equal(empty.first_trade, null);
      assert.equal((await call('GET', '/api/exchange/trades/stats?exchange=ftx')).statusCode, 422);
      assert.equal((await call('GET', '/api/exchange/trades/stats', null)).statusCode, 401);
    });
  });
});
