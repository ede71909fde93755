// The resting watch woken by commits (docs/decisions/640): an idle watch reads nothing until an order
// comes to rest, then every period until none rests; an order left resting by another instance is
// watched as soon as its transaction commits, not at the watch's slow fallback; one that came to rest
// unannounced, at that fallback.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, afterEach, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { VenueOrderRequest } from '../../../src/platform/order-venue.ts';
import type { RestingWatchTimes } from '../../../src/modules/paper/index.ts';
import { startBinanceWsFake, type BinanceWsFake } from '../../fakes/binance-ws.ts';
import { recordStatements } from '../../helpers/statements.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { waitFor } from '../../helpers/wait.ts';
import type { MarketHarness } from '../market/market-fixtures.ts';
import { limitBuy, PATIENT, startPaperMarket } from './paper-fixtures.ts';

/** The watch's read of the symbols with resting orders, as the database receives it. */
const isRestingRead = (text: string) => /select distinct "venue_symbol" from "paper_orders"/i.test(text);

describe('the resting watch woken by commits', () => {
  let ws: BinanceWsFake;
  // The instance the orders are submitted on: it never listens, so its own watch never runs.
  let m: MarketHarness;
  let user: TestUser;
  const apps: TestApp[] = [];

  const order = (o: Partial<VenueOrderRequest> = {}): VenueOrderRequest =>
    limitBuy(user.id, { amount: '0.01', price: '60000', ...o });

  /** Another instance on the same database, listening (its watch started). */
  async function watcher(options: { stream?: boolean; times?: RestingWatchTimes } = {}): Promise<TestApp> {
    const app = await buildTestApp({
      keepData: true,
      env: {
        BINANCE_API_URL: m.binance.url,
        COINGECKO_API_URL: m.coingecko.url,
        ...(options.stream ? { BINANCE_WS_URL: ws.url } : { MARKET_LIVE_STREAM: 'false' }),
        ...PATIENT,
      },
      modules: { paperWatch: options.times },
    });
    apps.push(app);
    await app.app.listen({ host: '127.0.0.1', port: 0 });
    return app;
  }

  before(async () => {
    ws = await startBinanceWsFake();
    m = await startPaperMarket();
    user = await signIn(m.app, m.database);
    const reset = await m.app.inject({
      method: 'POST',
      url: '/api/paper/account/reset',
      headers: user.headers,
      payload: { balances: { USDT: '10000' } },
    });
    assert.equal(reset.statusCode, 200, reset.body);
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
    // Nothing left resting for the next test.
    await m.app.inject({
      method: 'POST',
      url: '/api/paper/account/reset',
      headers: user.headers,
      payload: { balances: { USDT: '10000' } },
    });
  });
  after(async () => {
    await m?.stop();
    await ws?.close();
  });

  it('an order left resting on another instance is filled by the next tick through it, without a fallback read', async () => {
    // Nothing rests: after its first read this watch sleeps a minute (the default fallback).
    const recorder = recordStatements(m.database);
    let a: TestApp;
    try {
      a = await watcher({ stream: true });
      await waitFor(() => ws.connections === 1, 'the watching instance on the stream');
      await waitFor(() => recorder.texts.some(isRestingRead), "the watch's first read");
    } finally {
      recorder.stop();
    }
    const filled = new Promise<{ clientOrderId: string }>((resolve) => a.modules.paper.onOrderChanged(resolve));

    const buy = order();
    const placed = await m.modules.paper.venue.submit(buy);
    assert.equal(placed.kind === 'accepted' && placed.state.status, 'open', JSON.stringify(placed));
    // Told by the commit's notification: well within the minute the fallback would take.
    await waitFor(() => a.modules.paper.restingWatch.watching('BTCUSDT'), 'the other instance to follow BTCUSDT');

    ws.setPrice('BTCUSDT', '59999.99');
    ws.push(['BTCUSDT']);
    assert.equal((await filled).clientOrderId, buy.clientOrderId);
    const found = await m.modules.paper.venue.lookup(buy);
    assert.equal(found.kind === 'found' && found.state.status, 'filled');
  });

  it('an idle watch reads nothing until an order rests, then every period until none does', async () => {
    const recorder = recordStatements(m.database);
    try {
      const reads = () => recorder.texts.filter(isRestingRead).length;
      // A period of 20 ms: before this decision, 20 reads in the 400 ms below.
      const a = await watcher({ times: { periodMs: 20 } });
      await waitFor(() => reads() > 0, "the watch's first read");
      const first = reads();
      // Nothing announces an absence: the watch is given 20 periods to read, and must not.
      await sleep(400);
      assert.equal(reads(), first, 'an idle watch read the resting symbols');

      const buy = order();
      const placed = await m.modules.paper.venue.submit(buy);
      assert.equal(placed.kind === 'accepted' && placed.state.status, 'open', JSON.stringify(placed));
      await waitFor(() => reads() >= first + 3, 'the watch to read every period while the order rests');
      assert.ok(a.modules.paper.restingWatch.watching('BTCUSDT'));

      const canceled = await m.modules.paper.venue.cancel(buy);
      assert.equal(canceled.kind === 'done' && canceled.state.status, 'canceled', JSON.stringify(canceled));
      await waitFor(() => !a.modules.paper.restingWatch.watching('BTCUSDT'), 'the watch to drop BTCUSDT');
      const last = reads();
      await sleep(400);
      assert.equal(reads(), last, 'the watch kept reading once nothing rested');
    } finally {
      recorder.stop();
    }
  });

  it('an order that came to rest unannounced is watched at the fallback read', async () => {
    const buy = order();
    await m.modules.paper.venue.submit(buy);
    await m.modules.paper.venue.cancel(buy);
    // A fallback of 50 ms, and a period the test never reaches.
    const recorder = recordStatements(m.database);
    let a: TestApp;
    try {
      a = await watcher({ times: { periodMs: 600_000, idlePeriodMs: 50 } });
      await waitFor(() => recorder.texts.some(isRestingRead), "the watch's first read");
    } finally {
      recorder.stop();
    }
    // Resting again by a write that notifies no one, as one told while a LISTEN was down would be.
    await m.database.db.execute(
      sql`UPDATE paper_orders SET status = 'open' WHERE client_order_id = ${buy.clientOrderId}`,
    );
    await waitFor(() => a.modules.paper.restingWatch.watching('BTCUSDT'), 'the fallback read to find BTCUSDT');
  });
});
