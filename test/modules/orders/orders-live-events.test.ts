// The account stream of a live order (decision 345): the states committed before the send (pending,
// unknown) go out with the venue's answer when it comes at once, and on their own when it does not, so a
// slow venue never hides an order from the stream; either way, every state once and in order.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { follow } from '../../helpers/sse-client.ts';
import { waitFor } from '../../helpers/wait.ts';
import { startOrdersApp, type OrdersApp } from './orders-fixtures.ts';

type StreamEvent = { id?: string; type: string; data: Record<string, unknown> };
const order = (e: StreamEvent) => e.data.data as { id: string; status: string };

describe('the account stream of a live order', () => {
  let o: OrdersApp;
  let base: string;
  before(async () => {
    // A send waits for the venue as long as the test holds its answer, however busy the machine.
    o = await startOrdersApp({ env: { EXCHANGE_TIMEOUT_MS: '60000' } });
    base = await o.t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    await o.close();
  });

  it('shows a market order answered at once as pending, unknown and filled, each once, ids in order', async () => {
    const trader = await o.trader();
    const stream = follow(`${base}/api/stream`, { headers: trader.headers });
    try {
      await stream.opened;
      const placed = await o.place(trader, {});
      assert.equal(placed.statusCode, 201, placed.body);
      const id = placed.json().id as string;
      await stream.waitFor((e) => e.type === 'order.updated' && order(e).id === id && order(e).status === 'filled');
      const mine = stream.events.filter((e) => e.type === 'order.updated' && order(e).id === id);
      assert.deepEqual(
        mine.map((e) => order(e).status),
        ['pending', 'unknown', 'filled'],
      );
      const ids = mine.map((e) => Number(e.id));
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
      );
    } finally {
      stream.close();
    }
  });

  it('shows an order whose venue has not answered yet as pending and unknown, then its answer', async () => {
    const trader = await o.trader();
    const stream = follow(`${base}/api/stream`, { headers: trader.headers });
    const held = o.binance.hold({ pathPrefix: '/api/v3/order' });
    try {
      await stream.opened;
      const sent = o.binance.requests.length;
      const placing = o.place(trader, {});
      await waitFor(
        () => o.binance.requests.slice(sent).some((r) => r.method === 'POST' && r.path === '/api/v3/order'),
        'the order at the venue',
      );
      const unknown = await stream.waitFor((e) => e.type === 'order.updated' && order(e).status === 'unknown');
      const id = order(unknown).id;
      // The venue still holds the request unanswered: it has placed nothing yet.
      assert.equal(o.book.of(trader.account.apiKey).length, 0);
      held.release();
      const placed = await placing;
      assert.equal(placed.statusCode, 201, placed.body);
      assert.equal(placed.json().id, id);
      await stream.waitFor((e) => e.type === 'order.updated' && order(e).id === id && order(e).status === 'filled');
      assert.deepEqual(
        stream.events.filter((e) => e.type === 'order.updated' && order(e).id === id).map((e) => order(e).status),
        ['pending', 'unknown', 'filled'],
      );
    } finally {
      held.release();
      stream.close();
    }
  });
});
