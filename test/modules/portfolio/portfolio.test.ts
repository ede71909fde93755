import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { binanceDeposit, binanceTrade, binanceWithdrawal, type FakeAccount } from '../../fakes/binance.ts';
import { assertIssue } from '../../helpers/error-assertions.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { addAccount, startVenueFakes, type VenueFakes } from '../exchange/venue-fakes.ts';

const day = (d: number, h = 12) => Date.UTC(2026, 0, d, h);

describe('portfolio', () => {
  let fakes: VenueFakes;
  let t: TestApp;
  let user: TestUser;
  let account: FakeAccount;

  before(async () => {
    fakes = await startVenueFakes();
    t = await buildTestApp({ env: fakes.env() });
    user = await signIn(t.app, t.database);
    account = addAccount(fakes.binance, {
      balances: [
        { asset: 'BTC', free: '0.01000000', locked: '0.00499000' },
        { asset: 'USDT', free: '500.00000000', locked: '0.00000000' },
      ],
      trades: {
        BTCUSDT: [
          binanceTrade({
            symbol: 'BTCUSDT',
            id: 1,
            price: '40000',
            qty: '0.01',
            isBuyer: true,
            time: day(2),
            commission: '0.4',
            commissionAsset: 'USDT',
          }),
          binanceTrade({
            symbol: 'BTCUSDT',
            id: 2,
            price: '50000',
            qty: '0.01',
            isBuyer: true,
            time: day(3),
            commission: '0.00001',
            commissionAsset: 'BTC',
          }),
          binanceTrade({
            symbol: 'BTCUSDT',
            id: 3,
            price: '60000',
            qty: '0.005',
            isBuyer: false,
            time: day(4),
            commission: '0.3',
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
    assert.equal(created.statusCode, 201, created.body);
    for (const url of [
      '/api/exchange/balance/sync?exchange=binance',
      '/api/exchange/trades/sync?exchange=binance&symbol=BTCUSDT',
    ]) {
      const synced = await t.app.inject({ method: 'POST', url, headers: user.headers });
      assert.equal(synced.statusCode, 200, synced.body);
      assert.equal(synced.json().success, true, synced.body);
    }
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

    it('values in another quote the venue prices, converting each fill at its hour', async () => {
      // BTC is the quote: the BTC holding is worth its amount; USDT through BTCUSDT inverted.
      const body = (await get('/api/portfolio/summary?quote=BTC')).json();
      assert.equal(body.quote, 'BTC');
      const btc = body.assets.find((a: { asset: string }) => a.asset === 'BTC');
      assert.deepEqual([btc.amount, btc.price, btc.value], [0.01499, 1, 0.01]);
      const usdt = body.assets.find((a: { asset: string }) => a.asset === 'USDT');
      assert.equal(usdt.price, Number((1 / 65000).toFixed(8)));
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
  });

  describe('GET /api/portfolio/realized.csv', () => {
    it('writes one row per closed lot part with the exact header', async () => {
      const response = await get('/api/portfolio/realized.csv?quote=USDT');
      assert.equal(response.statusCode, 200, response.body);
      assert.match(String(response.headers['content-type']), /^text\/csv; charset=utf-8/);
      assert.equal(
        response.body,
        'asset,exchange,opened_at,closed_at,amount,cost,proceeds,fee,gain,holding_days\r\n' +
          `BTC,binance,${new Date(day(2)).toISOString()},${new Date(day(4)).toISOString()},0.00500000,200.20,300.00,0.30,99.50,2\r\n`,
      );
    });

    it('answers 422 for an unknown quote and 401 without a token', async () => {
      assertIssue(await get('/api/portfolio/realized.csv?quote=ZZZZ'), ['query', 'quote'], 'value_error');
      assert.equal((await get('/api/portfolio/realized.csv', null)).statusCode, 401);
    });
  });

  describe('the ledger kept between requests', () => {
    const resync = async () => {
      for (const url of [
        '/api/exchange/balance/sync?exchange=binance',
        '/api/exchange/trades/sync?exchange=binance&symbol=BTCUSDT',
      ]) {
        const synced = await t.app.inject({ method: 'POST', url, headers: user.headers });
        assert.equal(synced.json().success, true, synced.body);
      }
    };
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
        binanceTrade({
          symbol: 'BTCUSDT',
          id: 4,
          price: '70000',
          qty: '0.001',
          isBuyer: true,
          time: day(5),
          commission: '0.07',
          commissionAsset: 'USDT',
        }),
      );
      account.balances = [
        { asset: 'BTC', free: '0.01100000', locked: '0.00499000' },
        { asset: 'USDT', free: '429.93000000', locked: '0' },
      ];
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
        binanceTrade({
          symbol: 'BTCUSDT',
          id: 5,
          price: '30000',
          qty: '0.001',
          isBuyer: true,
          time: day(1),
          commission: '0.03',
          commissionAsset: 'USDT',
        }),
      );
      account.balances = [
        { asset: 'BTC', free: '0.01200000', locked: '0.00499000' },
        { asset: 'USDT', free: '399.90000000', locked: '0' },
      ];
      await resync();
      // Lots left: 0.006 (240.24), 0.00999 (500), 0.001 (70.07) = 0.01699 BTC, cost 810.31, at 65000 =
      // 1104.35, unrealized 294.04; USDT 399.90. Totals: 1504.25, 1210.21, 294.04, 109.51, 1.30.
      const body = (await get('/api/portfolio/summary')).json();
      assert.deepEqual(totals(body), [1504.25, 1210.21, 294.04, 109.51, 1.3]);
      assert.equal((await stored())?.trades, 5);
    });
  });

  describe('with deposits, withdrawals and a transfer between two venues', () => {
    let mover: TestUser;

    before(async () => {
      mover = await signIn(t.app, t.database);
      const global = addAccount(fakes.binance, {
        balances: [
          { asset: 'BTC', free: '0.006', locked: '0' },
          { asset: 'USDT', free: '498.6', locked: '0' },
        ],
        trades: {
          BTCUSDT: [
            binanceTrade({
              symbol: 'BTCUSDT',
              id: 1,
              price: '40000',
              qty: '0.01',
              isBuyer: true,
              time: day(2),
              commission: '0.4',
              commissionAsset: 'USDT',
            }),
          ],
        },
        deposits: [binanceDeposit({ id: 'd1', coin: 'USDT', amount: '1000', time: day(1) })],
        withdrawals: [
          binanceWithdrawal({ id: 'w1', coin: 'BTC', amount: '0.004', fee: '0', time: day(5), txId: 'move-1' }),
          binanceWithdrawal({ id: 'w2', coin: 'USDT', amount: '100', fee: '1', time: day(6) }),
        ],
      });
      const us = addAccount(fakes.binanceus, {
        balances: [
          { asset: 'BTC', free: '0.002', locked: '0' },
          { asset: 'USDT', free: '99.9', locked: '0' },
        ],
        trades: {
          BTCUSDT: [
            binanceTrade({
              symbol: 'BTCUSDT',
              id: 7,
              price: '50000',
              qty: '0.002',
              isBuyer: false,
              time: day(7),
              commission: '0.1',
              commissionAsset: 'USDT',
            }),
          ],
        },
        deposits: [binanceDeposit({ id: 'd9', coin: 'BTC', amount: '0.004', time: day(5, 13), txId: 'move-1' })],
      });
      for (const [venue, keys] of [
        ['binance', global],
        ['binanceus', us],
      ] as const) {
        const created = await t.app.inject({
          method: 'POST',
          url: '/api/exchange/credentials',
          headers: mover.headers,
          payload: { exchange_name: venue, api_key: keys.apiKey, api_secret: keys.secret },
        });
        assert.equal(created.statusCode, 201, created.body);
        for (const url of [
          `/api/exchange/balance/sync?exchange=${venue}`,
          `/api/exchange/trades/sync?exchange=${venue}&symbol=BTCUSDT`,
          `/api/exchange/transfers/sync?exchange=${venue}&since=${new Date(day(1, 0)).toISOString()}`,
        ]) {
          const synced = await t.app.inject({ method: 'POST', url, headers: mover.headers });
          assert.equal(synced.statusCode, 200, synced.body);
          assert.equal(synced.json().success, true, synced.body);
        }
      }
    });

    it('moves the lots with a transfer, counts outside flows only, and adds up', async () => {
      // By hand: 1000 USDT in (net deposits 1000). Buy 0.01 BTC for 400 + 0.4: one lot, cost 400.4.
      // 0.004 BTC leave binance and arrive on binance.us (same txid): a transfer, not a flow; the
      // oldest 0.004 (cost 160.16) move. 100 USDT out with 1 USDT fee: net deposits 900, realized
      // −1 on USDT. Sell 0.002 on binance.us at 50000, fee 0.1: closes 0.002 of the moved lot, cost
      // 80.08, gain 100 − 0.1 − 80.08 = 19.82. Held: 0.008 BTC (0.006 + 0.002) at 65000 = 520.00,
      // cost of the newest 0.008 = 80.08 + 240.24 = 320.32, unrealized 199.68; USDT 498.6 + 99.9 = 598.5.
      // Totals: value 1118.50, cost 918.82, unrealized 199.68, realized 18.82, fees 0.4 + 1 + 0.1 = 1.5;
      // value − net deposits = 218.50 = realized + unrealized.
      const body = (await get('/api/portfolio/summary', mover)).json();
      assert.deepEqual(
        [body.value, body.cost_basis, body.unrealized_pnl, body.realized_pnl, body.fees, body.net_deposits],
        [1118.5, 918.82, 199.68, 18.82, 1.5, 900],
      );
      assert.deepEqual(body.assets, [
        {
          asset: 'BTC',
          amount: 0.008,
          price: 65000,
          value: 520,
          cost_basis: 320.32,
          unrealized_pnl: 199.68,
          realized_pnl: 19.82,
        },
        {
          asset: 'USDT',
          amount: 598.5,
          price: 1,
          value: 598.5,
          cost_basis: 598.5,
          unrealized_pnl: 0,
          realized_pnl: -1,
        },
      ]);
      const csv = (await get('/api/portfolio/realized.csv', mover)).body.split('\r\n');
      assert.deepEqual(csv.slice(1), [
        `USDT,binance,,${new Date(day(6)).toISOString()},1.00000000,1.00,1.00,1.00,-1.00,`,
        `BTC,binanceus,${new Date(day(2)).toISOString()},${new Date(day(7)).toISOString()},0.00200000,80.08,100.00,0.10,19.82,5`,
        '',
      ]);
    });
  });

  describe('GET /api/portfolio/history', () => {
    let saver: TestUser;
    const at = (iso: string) => Date.parse(iso);
    const WINDOW = '&start=2026-01-01T00:00:00Z&end=2026-01-05T00:00:00Z&interval=1d';

    before(async () => {
      saver = await signIn(t.app, t.database);
      const keys = addAccount(fakes.binance, {
        balances: [
          { asset: 'BTC', free: '0.01', locked: '0' },
          { asset: 'USDT', free: '1099.6', locked: '0' },
        ],
        trades: {
          BTCUSDT: [
            binanceTrade({
              symbol: 'BTCUSDT',
              id: 1,
              price: '40000',
              qty: '0.01',
              isBuyer: true,
              time: at('2026-01-02T12:00:00Z'),
              commission: '0.4',
              commissionAsset: 'USDT',
            }),
          ],
        },
        deposits: [
          binanceDeposit({ id: 'h1', coin: 'USDT', amount: '1000', time: at('2025-12-31T12:00:00Z') }),
          binanceDeposit({ id: 'h2', coin: 'USDT', amount: '500', time: at('2026-01-03T12:00:00Z') }),
        ],
      });
      const created = await t.app.inject({
        method: 'POST',
        url: '/api/exchange/credentials',
        headers: saver.headers,
        payload: { exchange_name: 'binance', api_key: keys.apiKey, api_secret: keys.secret },
      });
      assert.equal(created.statusCode, 201, created.body);
      for (const url of [
        '/api/exchange/balance/sync?exchange=binance',
        '/api/exchange/trades/sync?exchange=binance&symbol=BTCUSDT',
        '/api/exchange/transfers/sync?exchange=binance&since=2025-12-30T00:00:00Z',
      ]) {
        const synced = await t.app.inject({ method: 'POST', url, headers: saver.headers });
        assert.equal(synced.json().success, true, synced.body);
      }
    });

    /** The daily closes the venue (the fake) serves, by open time: read from it, not from the code under test. */
    async function dailyCloses(): Promise<Map<number, number>> {
      const url = `${fakes.binance.url}/api/v3/klines?symbol=BTCUSDT&interval=1d&startTime=${at('2026-01-01T00:00:00Z')}&endTime=${at('2026-01-05T00:00:00Z')}`;
      const rows = (await (await fetch(url)).json()) as [number, string, string, string, string][];
      return new Map(rows.map((r) => [r[0], Number(r[4])]));
    }

    it('values what was held at each boundary with the candle that ended there, and its returns', async () => {
      const response = await get(`/api/portfolio/history?quote=USDT${WINDOW}`, saver);
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      const close = await dailyCloses();
      const c = (day: string) => close.get(at(`2026-01-${day}T00:00:00Z`))!;
      const r2 = (x: number) => Math.round(x * 100) / 100;
      // By hand: 1000 USDT until the buy on Jan 2 (0.01 BTC for 400.4), then 599.6 USDT + 0.01 BTC,
      // and 500 USDT more from Jan 3 noon; BTC at the close of the day before each boundary.
      const values = [1000, 1000, r2(599.6 + 0.01 * c('02')), r2(1099.6 + 0.01 * c('03')), r2(1099.6 + 0.01 * c('04'))];
      assert.deepEqual(body.points, [
        { ts: '2026-01-01T00:00:00.000Z', value: values[0], net_deposits: 1000 },
        { ts: '2026-01-02T00:00:00.000Z', value: values[1], net_deposits: 1000 },
        { ts: '2026-01-03T00:00:00.000Z', value: values[2], net_deposits: 1000 },
        { ts: '2026-01-04T00:00:00.000Z', value: values[3], net_deposits: 1500 },
        { ts: '2026-01-05T00:00:00.000Z', value: values[4], net_deposits: 1500 },
      ]);
      // TWR: the 500 deposited on Jan 3 is taken out of the period that holds it.
      const twr =
        (values[1]! / values[0]!) *
          (values[2]! / values[1]!) *
          ((values[3]! - 500) / values[2]!) *
          (values[4]! / values[3]!) -
        1;
      assert.ok(Math.abs(body.twr - twr) < 1e-8, `${body.twr} vs ${twr}`);
      // XIRR: the rate that discounts −1000 (Jan 1), −500 (Jan 3 noon) and +last value (Jan 5) to 0.
      const year = 365 * 86_400_000;
      const npv = (r: number) =>
        -1000 -
        500 / (1 + r) ** ((at('2026-01-03T12:00:00Z') - at('2026-01-01T00:00:00Z')) / year) +
        values[4]! / (1 + r) ** ((4 * 86_400_000) / year);
      assert.equal(typeof body.mwr, 'number');
      assert.ok(Math.abs(npv(body.mwr)) < 1e-3, `npv at ${body.mwr} is ${npv(body.mwr)}`);
    });

    it('keeps the closed candles: the same window asks the venue nothing, even after a restart', async () => {
      const klines = () =>
        fakes.binance.requests.filter((r) => r.path === '/api/v3/klines' && r.params.get('interval') === '1d').length;
      const before = klines();
      const restarted = await buildTestApp({ env: fakes.env(), keepData: true });
      try {
        const again = await restarted.app.inject({
          method: 'GET',
          url: `/api/portfolio/history?quote=USDT${WINDOW}`,
          headers: saver.headers,
        });
        assert.equal(again.statusCode, 200, again.body);
        assert.equal(again.json().points.length, 5);
      } finally {
        await restarted.close();
      }
      assert.equal(klines(), before);
    });

    it('answers 503 rather than value an asset at nothing when the venue does not give its closes', async () => {
      const window = '&start=2026-01-10T00:00:00Z&end=2026-01-14T00:00:00Z&interval=1d';
      fakes.binance.fail(500, undefined, { pathPrefix: '/api/v3/klines' });
      const response = await get(`/api/portfolio/history?quote=USDT${window}`, saver);
      assert.equal(response.statusCode, 503, response.body);
      assert.deepEqual(response.json(), {
        detail: 'The venue did not give the 1d closes of BTCUSDT; try again shortly',
      });
      assert.equal(response.headers['retry-after'], '5');
    });

    it('ends with now, and refuses a backwards or too long window (422) and no token (401)', async () => {
      const body = (await get('/api/portfolio/history?interval=1d', saver)).json();
      assert.equal(body.points.length, 31, '30 boundaries and now');
      assert.ok(Math.abs(Date.parse(body.points.at(-1).ts) - Date.now()) < 60_000);
      assertIssue(
        await get('/api/portfolio/history?start=2026-01-05T00:00:00Z&end=2026-01-01T00:00:00Z', saver),
        ['query', 'start'],
        'value_error',
      );
      assertIssue(
        await get('/api/portfolio/history?start=2020-01-01T00:00:00Z&end=2026-01-01T00:00:00Z&interval=1h', saver),
        ['query', 'start'],
        'value_error',
      );
      assertIssue(await get('/api/portfolio/history?interval=1w', saver), ['query', 'interval'], 'enum');
      assert.equal((await get('/api/portfolio/history', null)).statusCode, 401);
    });
  });
});
