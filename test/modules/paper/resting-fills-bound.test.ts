// Two resting paper orders, each within what a balance holds when placed (decision 832), whose fills together
// would carry the balance past 10^20 (decision 912): the first fills, the second expires with its lock given
// back, instead of failing its write on every tick.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startBinanceWsFake, type BinanceWsFake } from '../../fakes/binance-ws.ts';
import { signIn, type TestUser } from '../../helpers/test-app.ts';
import { waitFor } from '../../helpers/wait.ts';
import type { MarketHarness } from '../market/market-fixtures.ts';
import { limitBuy, startPaperMarket } from './paper-fixtures.ts';

describe('resting paper fills past what a balance holds together', () => {
  let ws: BinanceWsFake;
  let m: MarketHarness;
  let user: TestUser;
  const changed: string[] = [];

  const balances = async () => {
    const r = await m.app.inject({ method: 'GET', url: '/api/paper/account', headers: user.headers });
    return r.json<{ balances: { asset: string; free: string; locked: string }[] }>().balances;
  };

  before(async () => {
    ws = await startBinanceWsFake();
    m = await startPaperMarket({ BINANCE_WS_URL: ws.url });
    m.modules.paper.onOrderChanged((change) => changed.push(change.clientOrderId));
    await m.app.listen({ host: '127.0.0.1', port: 0 });
    await waitFor(() => ws.connections === 1, 'the instance on the stream');
    user = await signIn(m.app, m.database);
  });
  after(async () => {
    await m?.stop();
    await ws?.close();
  });

  it('fills the first and expires the second, its lock given back, when both would pass 10^20', async () => {
    const reset = await m.app.inject({
      method: 'POST',
      url: '/api/paper/account/reset',
      headers: user.headers,
      payload: { balances: { USDT: '1000000', BTC: '99999999999999999990' } },
    });
    assert.equal(reset.statusCode, 200, reset.body);
    // Each receives 6 BTC less its fee: either fits (…996), both do not (…002 less fees).
    const first = limitBuy(user.id, { amount: '6', price: '64000' });
    const second = limitBuy(user.id, { amount: '6', price: '64000' });
    for (const order of [first, second]) {
      const placed = await m.modules.paper.venue.submit(order);
      assert.equal(placed.kind === 'accepted' && placed.state.status, 'open', JSON.stringify(placed));
    }
    const watch = m.modules.paper.restingWatch;
    await waitFor(() => watch.watching('BTCUSDT'), 'the watch following BTCUSDT');

    ws.setPrice('BTCUSDT', '63999.99');
    ws.push(['BTCUSDT']);
    await waitFor(async () => {
      await watch.look();
      return changed.length === 2;
    }, 'both orders to change');

    const state = async (order: typeof first) => {
      const found = await m.modules.paper.venue.lookup(order);
      assert.equal(found.kind, 'found');
      return found.kind === 'found' ? found.state : undefined;
    };
    const [a, b] = [await state(first), await state(second)];
    assert.deepEqual([a?.status, b?.status].sort(), ['expired', 'filled'], 'one fills, the other expires');
    const expired = a?.status === 'expired' ? a : b;
    assert.match(expired?.reason ?? '', /paper balance of BTC would reach 10\^20/);
    assert.deepEqual(expired?.fills, []);
    // 384000 USDT paid for the filled one, the other's lock given back; 6 BTC less the 0.006 maker fee arrived.
    assert.deepEqual(await balances(), [
      { asset: 'BTC', free: '99999999999999999995.994', locked: '0' },
      { asset: 'USDT', free: '616000', locked: '0' },
    ]);
  });
});
