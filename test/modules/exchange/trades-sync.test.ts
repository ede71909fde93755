import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { exchangeTrades } from '../../../src/modules/exchange/exchange.tables.ts';
import type { FakeAccount } from '../../fakes/binance.ts';
import { binanceTrade } from '../../fakes/binance-shapes.ts';
import { signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { storeVenueCredential } from '../../helpers/venue-credentials.ts';
import { day, startTradesApp, type TradesApp } from './trades-fixtures.ts';
import { addAccount, extraMarket, type VenueFakes } from './venue-fakes.ts';

/** 22 currencies ahead of XRP in the alphabet, each with one market on the fake: more than a sync asks. */
const SMALL_HOLDINGS = Array.from({ length: 22 }, (_, i) => `AA${String.fromCharCode(65 + i)}`);

// Syncing trades from the venue. Listing the stored trades and their stats is in
// trades-listing.test.ts.
describe('exchange trades', () => {
  let fakes: VenueFakes;
  let t: TestApp;
  let user: TestUser;
  let account: FakeAccount;
  let call: TradesApp['call'];

  before(async () => {
    ({ fakes, t, user, account, call } = await startTradesApp({
      extraBinanceMarkets: SMALL_HOLDINGS.map((base) => extraMarket(base)),
    }));
  });
  after(async () => {
    await t.close();
    await fakes.close();
  });

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
      await storeVenueCredential(t.app, other, 'binance', account);
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

    it(
      'stores all of 250 new trades with limit=100 over ' + 'repeated syncs, none skipped, has_more until the last',
      async () => {
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
        await storeVenueCredential(t.app, busy, 'binance', trader);
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
      },
    );

    it(
      'without a symbol, asks every pair of the currencies ' + "held in the latest snapshot against the venue's quotes",
      async () => {
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
      },
    );

    it(
      "without a symbol and more than 20 markets held, asks the largest holdings' " +
        'markets first, whatever their letter',
      async () => {
        const whale = await signIn(t.app, t.database);
        const holder = addAccount(fakes.binance, {
          balances: [
            ...SMALL_HOLDINGS.map((asset) => ({ asset, free: '1.00000000', locked: '0.00000000' })),
            { asset: 'XRP', free: '4000.00000000', locked: '1000.00000000' },
          ],
          trades: {
            XRPUSDT: [
              binanceTrade({ symbol: 'XRPUSDT', id: 9, price: '0.5', qty: '1000', isBuyer: true, time: day(8) }),
            ],
          },
        });
        await storeVenueCredential(t.app, whale, 'binance', holder);
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
      },
    );

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
});
