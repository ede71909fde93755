import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { binanceTrade } from '../../fakes/binance-shapes.ts';
import { signIn, type TestApp } from '../../helpers/test-app.ts';
import { day, startTradesApp, type TradesApp } from './trades-fixtures.ts';
import type { VenueFakes } from './venue-fakes.ts';

// Listing the stored trades and their stats. Syncing them from the venue is in trades-sync.test.ts.
describe('exchange trades', () => {
  let fakes: VenueFakes;
  let t: TestApp;
  let call: TradesApp['call'];

  before(async () => {
    let account: TradesApp['account'];
    ({ fakes, t, account, call } = await startTradesApp());
    // Six stored trades: two BTC/USDT, one ETH/USDT, two XRP/USDT and one LTC/USDT the venue sent
    // without a price, stored as failed.
    const priceless = binanceTrade({ symbol: 'LTCUSDT', id: 7, price: '80', qty: '1', isBuyer: true, time: day(7) });
    delete priceless.price;
    account.trades.LTCUSDT = [priceless];
    for (const [symbol, count] of [
      ['BTCUSDT', 2],
      ['ETHUSDT', 1],
      ['XRPUSDT', 2],
      ['LTCUSDT', 1],
    ] as const) {
      const synced = await call('POST', `/api/exchange/trades/sync?exchange=binance&symbol=${symbol}`);
      assert.equal(synced.json().trades_synced, count, synced.body);
    }
  });
  after(async () => {
    await t.close();
    await fakes.close();
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

    it('shows each trade as the venue reported it, amounts exact and a priceless one without amounts', async () => {
      const { trades } = (await call('GET', '/api/exchange/trades?exchange=binance')).json();
      const sell = trades.find(
        (tr: { symbol: string; side: string }) => tr.symbol === 'BTC/USDT' && tr.side === 'sell',
      );
      assert.ok(sell, JSON.stringify(trades));
      const { id, created_at, ...reported } = sell;
      assert.match(id, /^[0-9a-f-]{36}$/);
      assert.ok(Date.parse(created_at) > day(3), created_at);
      assert.deepEqual(reported, {
        exchange_trade_id: '102',
        exchange: 'binance',
        symbol: 'BTC/USDT',
        side: 'sell',
        price: 65100.2,
        amount: 0.005,
        total: 325.501,
        fee: 0.325501,
        fee_currency: 'USDT',
        trade_timestamp: new Date(day(3)).toISOString(),
        sync_status: 'synced',
      });
      const failed = trades.find((tr: { symbol: string }) => tr.symbol === 'LTC/USDT');
      assert.deepEqual([failed.price, failed.sync_status], [null, 'failed']);
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
          `/api/exchange/trades?exchange=binance&start_date=${new Date(day(3, 0)).toISOString()}` +
            `&end_date=${new Date(day(4, 23)).toISOString()}`,
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
          `/api/exchange/trades/stats?exchange=binance&start_date=${new Date(day(5, 0)).toISOString()}` +
            `&end_date=${new Date(day(6, 23)).toISOString()}`,
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
