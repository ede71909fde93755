// Resting paper orders fill when a real tick from the Binance stream fake goes through their price,
// at their price with the maker fee; with two instances hearing the same tick, exactly one fills.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { VenueOrderRequest } from '../../../src/platform/order-venue.ts';
import { startBinanceWsFake, type BinanceWsFake } from '../../fakes/binance-ws.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { waitFor } from '../../helpers/wait.ts';
import type { MarketHarness } from '../market/market-fixtures.ts';
import { limitBuy, PATIENT, startPaperMarket } from './paper-fixtures.ts';

type Change = { userId: string; clientOrderId: string };

describe('resting paper orders', () => {
  let ws: BinanceWsFake;
  let m: MarketHarness;
  let second: TestApp;
  let user: TestUser;
  const heard: Change[][] = [[], []];

  const order = (o: Partial<VenueOrderRequest>): VenueOrderRequest =>
    limitBuy(user.id, { amount: '0.1', price: '64000', ...o });
  const balances = async () => {
    const r = await m.app.inject({ method: 'GET', url: '/api/paper/account', headers: user.headers });
    return r.json<{ balances: { asset: string; free: string; locked: string }[] }>().balances;
  };

  before(async () => {
    ws = await startBinanceWsFake();
    m = await startPaperMarket({ BINANCE_WS_URL: ws.url });
    // A second instance on the same database and the same stream.
    second = await buildTestApp({
      keepData: true,
      env: { BINANCE_API_URL: m.binance.url, BINANCE_WS_URL: ws.url, COINGECKO_API_URL: m.coingecko.url, ...PATIENT },
    });
    m.modules.paper.onOrderChanged((change) => heard[0]!.push(change));
    second.modules.paper.onOrderChanged((change) => heard[1]!.push(change));
    await m.app.listen({ host: '127.0.0.1', port: 0 });
    await second.app.listen({ host: '127.0.0.1', port: 0 });
    await waitFor(() => ws.connections === 2, 'both instances on the stream');
    user = await signIn(m.app, m.database);
    const reset = await m.app.inject({
      method: 'POST',
      url: '/api/paper/account/reset',
      headers: user.headers,
      payload: { balances: { USDT: '10000', BTC: '1' } },
    });
    assert.equal(reset.statusCode, 200, reset.body);
  });
  // Each part closed even when `before` failed halfway: a fake left open keeps the process alive.
  after(async () => {
    await second?.close();
    await m?.stop();
    await ws?.close();
  });

  it('a buy fills at its price with the maker fee once a tick goes below it, not on a touch', async () => {
    const buy = order({});
    const placed = await m.modules.paper.venue.submit(buy);
    assert.equal(placed.kind === 'accepted' && placed.state.status, 'open', JSON.stringify(placed));
    const both = [m, second].map((app) => app.modules.paper.restingWatch);
    await waitFor(() => both.every((w) => w.watching('BTCUSDT')), 'both instances following BTCUSDT');

    // A touch of 64000 leaves it resting.
    ws.setPrice('BTCUSDT', '64000.00');
    ws.push(['BTCUSDT']);
    const streamed = async (app: TestApp, price: number) => {
      const r = await app.app.inject({ method: 'GET', url: '/api/v1/market/prices/BTCUSDT' });
      const body = r.json<{ price: number; feed: string }>();
      return body.feed === 'stream' && body.price === price;
    };
    // Once each instance serves the touch, its watch has heard it too (the same message's listeners).
    await waitFor(async () => (await streamed(m, 64000)) && (await streamed(second, 64000)), 'the touch heard');
    await Promise.all(both.map((w) => w.look()));
    const touched = await m.modules.paper.venue.lookup(buy);
    assert.equal(touched.kind === 'found' && touched.state.status, 'open');

    ws.setPrice('BTCUSDT', '63999.99');
    ws.push(['BTCUSDT']);
    await waitFor(() => heard.flat().length > 0, 'the fill to be announced');
    await Promise.all(both.map((w) => w.look()));

    const found = await m.modules.paper.venue.lookup(buy);
    assert.equal(found.kind, 'found');
    const state = found.kind === 'found' ? found.state : undefined;
    assert.equal(state?.status, 'filled');
    assert.deepEqual(
      state?.fills.map((f) => [f.price, f.amount, f.fee, f.feeCurrency, f.maker]),
      [['64000', '0.1', '0.0001', 'BTC', true]],
    );
    assert.deepEqual(heard.flat(), [{ userId: user.id, clientOrderId: buy.clientOrderId }], 'announced once');
    const [{ n }] = await m.database.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM paper_fills`);
    assert.equal(n, 1, 'one instance filled it');
    // 6400 USDT left the lock; 0.1 BTC less the 0.0001 maker fee arrived.
    assert.deepEqual(await balances(), [
      { asset: 'BTC', free: '1.0999', locked: '0' },
      { asset: 'USDT', free: '3600', locked: '0' },
    ]);
  });
});
