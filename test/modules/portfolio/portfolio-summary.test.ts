import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { FakeAccount } from '../../fakes/binance.ts';
import { assertIssue } from '../../helpers/error-assertions.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { addAccount, type VenueFakes } from '../exchange/venue-fakes.ts';
import { btcusdtTrade, day, holdings, linkAndSync, startPortfolioApp, sync, syncUrls } from './portfolio-fixtures.ts';

// One user with three BTCUSDT trades on Binance: the summary, the realized CSV, and the ledger kept
// between requests as later trades arrive. Transfers and the history are in portfolio-history.test.ts.
describe('portfolio', () => {
  let fakes: VenueFakes;
  let t: TestApp;
  let user: TestUser;
  let account: FakeAccount;

  before(async () => {
    ({ fakes, t } = await startPortfolioApp());
    user = await signIn(t.app, t.database);
    account = addAccount(fakes.binance, {
      balances: holdings({ BTC: ['0.01000000', '0.00499000'], USDT: ['500.00000000', '0.00000000'] }),
      trades: {
        BTCUSDT: [
          btcusdtTrade({ id: 1, price: '40000', qty: '0.01', isBuyer: true, time: day(2), commission: '0.4' }),
          btcusdtTrade({
            id: 2,
            price: '50000',
            qty: '0.01',
            isBuyer: true,
            time: day(3),
            commission: '0.00001',
            commissionAsset: 'BTC',
          }),
          btcusdtTrade({ id: 3, price: '60000', qty: '0.005', isBuyer: false, time: day(4), commission: '0.3' }),
        ],
      },
    });
    await linkAndSync(t, user, 'binance', account, syncUrls('binance'));
  });
  after(async () => {
    await t.close();
    await fakes.close();
  });

  const get = (url: string, who: TestUser | null = user) =>
    t.app.inject({ method: 'GET', url, headers: who?.headers ?? {} });

  describe('GET /api/portfolio/summary', () => {
    it('values the latest balances at the last price against FIFO lots of the stored trades', async () => {
      // By hand: lot 1 = 0.01 BTC for 400 + 0.4 fee = 400.4; lot 2 = 0.01 − 0.00001 (fee in BTC) =
      // 0.00999 BTC for 500 (fee worth 0.5); the sell of 0.005 at 60000 closes half of lot 1: cost
      // 200.2, net proceeds 300 − 0.3 = 299.7, realized 99.5. Held 0.01499 BTC at the fake's last
      // price 65000 = 974.35, cost 200.2 + 500 = 700.2, unrealized 274.15; 500 USDT at 1. Fees
      // 0.4 + 0.5 + 0.3 = 1.2.
      const response = await get('/api/portfolio/summary?quote=usdt');
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.ok(Math.abs(Date.parse(body.as_of) - Date.now()) < 60_000);
      assert.deepEqual(
        { ...body, as_of: null },
        {
          quote: 'USDT',
          as_of: null,
          value: 1474.35,
          cost_basis: 1200.2,
          unrealized_pnl: 274.15,
          realized_pnl: 99.5,
          fees: 1.2,
          net_deposits: 0,
          assets: [
            {
              asset: 'BTC',
              amount: 0.01499,
              price: 65000,
              value: 974.35,
              cost_basis: 700.2,
              unrealized_pnl: 274.15,
              realized_pnl: 99.5,
            },
            { asset: 'USDT', amount: 500, price: 1, value: 500, cost_basis: 500, unrealized_pnl: 0, realized_pnl: 0 },
          ],
        },
      );
    });

    const usdtOf = (body: { assets: { asset: string; [k: string]: unknown }[] }) => {
      const usdt = body.assets.find((a) => a.asset === 'USDT')!;
      return [usdt.amount, usdt.price, usdt.value, usdt.cost_basis, usdt.unrealized_pnl];
    };

    it('values in another quote the venue prices, converting each fill at its hour', async () => {
      // BTC is the quote: the BTC holding is worth its amount; USDT through BTCUSDT inverted.
      const body = (await get('/api/portfolio/summary?quote=BTC')).json();
      assert.equal(body.quote, 'BTC');
      const btc = body.assets.find((a: { asset: string }) => a.asset === 'BTC');
      // A crypto quote keeps 8 decimals (decision 893): 0.01499 BTC is not 0.01, fees of 0.00001844 BTC are not 0.
      assert.deepEqual([btc.amount, btc.price, btc.value], [0.01499, 1, 0.01499]);
      assert.deepEqual(
        { ...body, as_of: undefined, assets: undefined },
        {
          quote: 'BTC',
          as_of: undefined,
          value: 0.02268231,
          cost_basis: 0.02260875,
          unrealized_pnl: 0.00007356,
          realized_pnl: 0,
          fees: 0.00001844,
          net_deposits: 0,
          assets: undefined,
        },
      );
      assert.deepEqual(usdtOf(body), [500, 0.00001538, 0.00769231, 0.00761875, 0.00007356], 'the parts add up');
      const klines = fakes.binance.requests.filter(
        (r) => r.path === '/api/v3/klines' && r.params.get('symbol') === 'BTCUSDT' && r.params.get('interval') === '1h',
      );
      assert.ok(klines.length >= 3, 'each fill valued at the close of its hour');
    });

    it('filters holdings by venue', async () => {
      const body = (await get('/api/portfolio/summary?exchange=binanceus')).json();
      assert.deepEqual(
        body.assets.map((a: { asset: string; amount: number }) => [a.asset, a.amount]),
        [['BTC', 0]],
        'nothing held there; the realized result stays',
      );
      assert.equal(body.value, 0);
      assert.equal(body.realized_pnl, 99.5);
    });

    it('answers 422 for a quote the venue prices in no pair, or a malformed one', async () => {
      const unknown = await get('/api/portfolio/summary?quote=NOPE');
      assertIssue(unknown, ['query', 'quote'], 'value_error');
      const malformed = await get('/api/portfolio/summary?quote=US-DT');
      assertIssue(malformed, ['query', 'quote'], 'string_pattern_mismatch');
    });

    it('answers 401 without a token and is empty for a user with nothing synced', async () => {
      assert.equal((await get('/api/portfolio/summary', null)).statusCode, 401);
      const other = await signIn(t.app, t.database);
      const body = (await get('/api/portfolio/summary', other)).json();
      assert.deepEqual([body.value, body.realized_pnl, body.assets], [0, 0, []]);
    });

    it('answers a user with nothing stored without asking Binance, so also when it is unreachable', async () => {
      // The same database, and a Binance that refuses every connection: holding nothing needs no price.
      const offline = await buildTestApp({ env: fakes.env({ BINANCE_API_URL: fakes.closedUrl }), keepData: true });
      try {
        const nobody = await signIn(offline.app, offline.database);
        const ask = (url: string, who: TestUser) => offline.app.inject({ method: 'GET', url, headers: who.headers });
        const summary = await ask('/api/portfolio/summary?quote=usdt', nobody);
        assert.equal(summary.statusCode, 200, summary.body);
        assert.deepEqual(
          { ...summary.json<Record<string, unknown>>(), as_of: null },
          {
            quote: 'USDT',
            as_of: null,
            value: 0,
            cost_basis: 0,
            unrealized_pnl: 0,
            realized_pnl: 0,
            fees: 0,
            net_deposits: 0,
            assets: [],
          },
        );
        const csv = await ask('/api/portfolio/realized.csv', nobody);
        assert.equal(csv.statusCode, 200, csv.body);
        assert.equal(csv.body, 'asset,exchange,opened_at,closed_at,amount,cost,proceeds,fee,gain,holding_days\r\n');
        const history = await ask('/api/portfolio/history?interval=1d', nobody);
        assert.equal(history.statusCode, 200, history.body);
        assert.deepEqual([history.json().points.length, history.json().twr, history.json().mwr], [31, null, null]);
        assert.ok(
          history
            .json()
            .points.every((p: { value: number; net_deposits: number }) => p.value === 0 && p.net_deposits === 0),
        );
        // Holding BTC needs its price: that answer still says the venue is unreachable.
        const holder = await ask('/api/portfolio/summary', user);
        assert.equal(holder.statusCode, 503, holder.body);
      } finally {
        await offline.close();
      }
    });
    it("answers 503 rather than value a past fill at today's price when its hour's close is not given, and keeps nothing wrong (decision 892)", async () => {
      // A buy of BTC for USDT summed in BTC: the USDT paid is valued at the close of the fill's hour.
      const trader = () =>
        addAccount(fakes.binance, {
          balances: holdings({ BTC: ['0.01000000', '0.00000000'] }),
          trades: {
            BTCUSDT: [
              btcusdtTrade({ id: 11, price: '40000', qty: '0.01', isBuyer: true, time: day(6, 9), commission: '0.4' }),
            ],
          },
        });
      const unlucky = await signIn(t.app, t.database);
      await linkAndSync(t, unlucky, 'binance', trader(), syncUrls('binance'));
      fakes.binance.fail(500, undefined, { pathPrefix: '/api/v3/klines' });
      const refused = await get('/api/portfolio/summary?quote=BTC', unlucky);
      assert.equal(refused.statusCode, 503, refused.body);
      assert.deepEqual(refused.json(), {
        detail: 'The venue did not give the hourly close of BTCUSDT; try again shortly',
      });
      assert.equal(refused.headers['retry-after'], '5');
      // Once the venue answers, the figures are those of a user who never met the failure.
      const lucky = await signIn(t.app, t.database);
      await linkAndSync(t, lucky, 'binance', trader(), syncUrls('binance'));
      const expected = (await get('/api/portfolio/summary?quote=BTC', lucky)).json<Record<string, unknown>>();
      const after = await get('/api/portfolio/summary?quote=BTC', unlucky);
      assert.equal(after.statusCode, 200, after.body);
      assert.deepEqual({ ...after.json<Record<string, unknown>>(), as_of: null }, { ...expected, as_of: null });
    });
  });

  describe('GET /api/portfolio/realized.csv', () => {
    it('writes one row per closed lot part with the exact header', async () => {
      const response = await get('/api/portfolio/realized.csv?quote=USDT');
      assert.equal(response.statusCode, 200, response.body);
      assert.match(String(response.headers['content-type']), /^text\/csv; charset=utf-8/);
      assert.equal(
        response.body,
        `asset,exchange,opened_at,closed_at,amount,cost,proceeds,fee,gain,holding_days\r\n` +
          `BTC,binance,${new Date(day(2)).toISOString()},${new Date(day(4)).toISOString()},` +
          '0.00500000,200.20,300.00,0.30,99.50,2\r\n',
      );
    });

    it('writes the values of a crypto quote to 8 decimals (decision 893)', async () => {
      const btc = await get('/api/portfolio/realized.csv?quote=btc');
      assert.equal(btc.statusCode, 200, btc.body);
      assert.equal(
        btc.body,
        `asset,exchange,opened_at,closed_at,amount,cost,proceeds,fee,gain,holding_days\r\n` +
          `USDT,binance,,${new Date(day(2)).toISOString()},400.40000000,0.00611562,0.00611562,0.00000000,0.00000000,\r\n` +
          `USDT,binance,,${new Date(day(3)).toISOString()},500.00000000,0.00778759,0.00778759,0.00000000,0.00000000,\r\n`,
      );
    });

    it('answers 422 for an unknown quote and 401 without a token', async () => {
      assertIssue(await get('/api/portfolio/realized.csv?quote=ZZZZ'), ['query', 'quote'], 'value_error');
      assert.equal((await get('/api/portfolio/realized.csv', null)).statusCode, 401);
    });
  });

  describe('the ledger kept between requests', () => {
    const resync = () => sync(t, user, syncUrls('binance'));
    const stored = async () => {
      const rows = await t.database.rows<{ trades: number; quote: string }>(
        sql`SELECT trades, quote FROM portfolio_ledgers WHERE user_id = ${user.id} AND quote = 'USDT'`,
      );
      return rows[0];
    };
    const totals = (body: Record<string, number>) => [
      body.value,
      body.cost_basis,
      body.unrealized_pnl,
      body.realized_pnl,
      body.fees,
    ];

    it('applies a later trade to the stored lots', async () => {
      assert.equal((await stored())?.trades, 3, 'the earlier summaries stored the ledger of three trades');
      // A fourth trade after all: buy 0.001 BTC at 70000, fee 0.07 USDT → a lot of cost 70.07.
      account.trades.BTCUSDT!.push(
        btcusdtTrade({ id: 4, price: '70000', qty: '0.001', isBuyer: true, time: day(5), commission: '0.07' }),
      );
      account.balances = holdings({ BTC: ['0.01100000', '0.00499000'], USDT: ['429.93000000', '0'] });
      await resync();
      // By hand: lots 0.005 (200.2) + 0.00999 (500) + 0.001 (70.07) = 0.01599 BTC, cost 770.27, at
      // 65000 = 1039.35, unrealized 269.08; USDT 429.93. Totals: 1469.28, 1200.20, 269.08, 99.5, 1.27.
      const updates = await t.database.rows<{ data: Record<string, unknown> }>(
        sql`SELECT data FROM stream_events WHERE user_id = ${user.id} AND type = 'portfolio.updated' ORDER BY id`,
      );
      assert.deepEqual(
        updates.map((u) => u.data),
        [
          { exchange: 'binance', cause: 'trades', stored: 3 },
          { exchange: 'binance', cause: 'trades', stored: 1 },
        ],
        'the account stream hears of each sync that stored trades',
      );
      const body = (await get('/api/portfolio/summary')).json();
      assert.deepEqual(totals(body), [1469.28, 1200.2, 269.08, 99.5, 1.27]);
      assert.equal((await stored())?.trades, 4);
    });

    it('replays when a trade stored late happened before what the stored lots hold', async () => {
      // Bought 0.001 at 30000 (fee 0.03) before everything: it is the oldest lot, so the sell of day 4
      // now closes it (30.03) and 0.004 of the first lot (160.16): realized 299.7 − 190.19 = 109.51.
      account.trades.BTCUSDT!.push(
        btcusdtTrade({ id: 5, price: '30000', qty: '0.001', isBuyer: true, time: day(1), commission: '0.03' }),
      );
      account.balances = holdings({ BTC: ['0.01200000', '0.00499000'], USDT: ['399.90000000', '0'] });
      await resync();
      // Lots left: 0.006 (240.24), 0.00999 (500), 0.001 (70.07) = 0.01699 BTC, cost 810.31, at 65000 =
      // 1104.35, unrealized 294.04; USDT 399.90. Totals: 1504.25, 1210.21, 294.04, 109.51, 1.30.
      const body = (await get('/api/portfolio/summary')).json();
      assert.deepEqual(totals(body), [1504.25, 1210.21, 294.04, 109.51, 1.3]);
      assert.equal((await stored())?.trades, 5);
    });
  });
});
