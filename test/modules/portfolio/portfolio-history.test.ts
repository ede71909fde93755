import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { binanceDeposit, binanceWithdrawal } from '../../fakes/binance-shapes.ts';
import { assertIssue } from '../../helpers/error-assertions.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { addAccount, type VenueFakes } from '../exchange/venue-fakes.ts';
import { btcusdtTrade, day, holdings, linkAndSync, startPortfolioApp, syncUrls } from './portfolio-fixtures.ts';

// Money moving in, out and between venues, and the portfolio's value over time with its returns.
describe('portfolio', () => {
  let fakes: VenueFakes;
  let t: TestApp;

  before(async () => {
    ({ fakes, t } = await startPortfolioApp());
  });
  after(async () => {
    await t.close();
    await fakes.close();
  });

  const get = (url: string, who: TestUser | null) => t.app.inject({ method: 'GET', url, headers: who?.headers ?? {} });

  describe('with deposits, withdrawals and a transfer between two venues', () => {
    let mover: TestUser;

    before(async () => {
      mover = await signIn(t.app, t.database);
      const global = addAccount(fakes.binance, {
        balances: holdings({ BTC: ['0.006', '0'], USDT: ['498.6', '0'] }),
        trades: {
          BTCUSDT: [
            btcusdtTrade({ id: 1, price: '40000', qty: '0.01', isBuyer: true, time: day(2), commission: '0.4' }),
          ],
        },
        deposits: [binanceDeposit({ id: 'd1', coin: 'USDT', amount: '1000', time: day(1) })],
        withdrawals: [
          binanceWithdrawal({ id: 'w1', coin: 'BTC', amount: '0.004', fee: '0', time: day(5), txId: 'move-1' }),
          binanceWithdrawal({ id: 'w2', coin: 'USDT', amount: '100', fee: '1', time: day(6) }),
        ],
      });
      const us = addAccount(fakes.binanceus, {
        balances: holdings({ BTC: ['0.002', '0'], USDT: ['99.9', '0'] }),
        trades: {
          BTCUSDT: [
            btcusdtTrade({ id: 7, price: '50000', qty: '0.002', isBuyer: false, time: day(7), commission: '0.1' }),
          ],
        },
        deposits: [binanceDeposit({ id: 'd9', coin: 'BTC', amount: '0.004', time: day(5, 13), txId: 'move-1' })],
      });
      for (const [venue, keys] of [
        ['binance', global],
        ['binanceus', us],
      ] as const) {
        await linkAndSync(t, mover, venue, keys, syncUrls(venue, new Date(day(1, 0)).toISOString()));
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
        balances: holdings({ BTC: ['0.01', '0'], USDT: ['1099.6', '0'] }),
        trades: {
          BTCUSDT: [
            btcusdtTrade({
              id: 1,
              price: '40000',
              qty: '0.01',
              isBuyer: true,
              time: at('2026-01-02T12:00:00Z'),
              commission: '0.4',
            }),
          ],
        },
        deposits: [
          binanceDeposit({ id: 'h1', coin: 'USDT', amount: '1000', time: at('2025-12-31T12:00:00Z') }),
          binanceDeposit({ id: 'h2', coin: 'USDT', amount: '500', time: at('2026-01-03T12:00:00Z') }),
        ],
      });
      await linkAndSync(t, saver, 'binance', keys, syncUrls('binance', '2025-12-30T00:00:00Z'));
    });

    /** The daily closes the venue (the fake) serves, by open time: read from it, not from the code under test. */
    async function dailyCloses(): Promise<Map<number, number>> {
      const url =
        `${fakes.binance.url}/api/v3/klines?symbol=BTCUSDT&interval=1d` +
        `&startTime=${at('2026-01-01T00:00:00Z')}&endTime=${at('2026-01-05T00:00:00Z')}`;
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

    it('values in a crypto quote to 8 decimals (decision 893)', async () => {
      const response = await get(`/api/portfolio/history?quote=BTC${WINDOW}`, saver);
      assert.equal(response.statusCode, 200, response.body);
      const last = response.json().points.at(-1);
      // By hand: 1099.6 USDT at the inverted close of Jan 4, and 0.01 BTC.
      const expected = 1099.6 / (await dailyCloses()).get(at('2026-01-04T00:00:00Z'))! + 0.01;
      assert.ok(Math.abs(last.value - expected) < 1e-8, `${last.value} vs ${expected}`);
      assert.equal(last.value, Number(last.value.toFixed(8)));
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
      // Counted, never built: a window from year 1 names its size and the bound (decision 199).
      const centuries = await get('/api/portfolio/history?start=0001-01-01T00:00:00Z&interval=1h', saver);
      assertIssue(centuries, ['query', 'start'], 'value_error');
      const issue = centuries.json().detail[0];
      assert.equal(issue.ctx.le, 1000);
      assert.ok(Number(/holds (\d+) points/.exec(issue.msg)?.[1]) > 17_700_000, issue.msg);
      assertIssue(await get('/api/portfolio/history?interval=1w', saver), ['query', 'interval'], 'enum');
      assert.equal((await get('/api/portfolio/history', null)).statusCode, 401);
    });
  });
});
