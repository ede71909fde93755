// When Kraken still refuses a nonce (decision 280): the service's own calls of a key come in order, so
// a refusal means another program used the key with greater nonces. An order is then `rejected` with
// Kraken's words (nothing was placed) and sent once, never again; a read is asked once more with a new
// nonce and, refused again, answers why and what to do.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KrakenFake } from '../../fakes/kraken.ts';
import { ordersOf, type VenueAccount } from '../../fakes/venue-loopback.ts';
import { KRAKEN_LIMIT_BUY, startKrakenTrading, type Trader, type VenueOrdersApp } from './orders-fixtures.ts';

/** A nonce another program sent: microseconds, a thousand times ours (milliseconds). */
const OTHER_PROGRAM = BigInt(Date.now()) * 1000n;

describe("Kraken's invalid nonce answer", () => {
  let fake: KrakenFake;
  let o: VenueOrdersApp;
  let trader: Trader;
  let account: VenueAccount;
  before(async () => {
    ({ o, fake, trader, account } = await startKrakenTrading());
  });
  after(async () => {
    await o?.close();
  });

  const sent = (path: string) => fake.requests.filter((r) => r.path === path).length;

  it('an order is rejected with the reason, sent once and never again', async () => {
    fake.acceptedNonce(account.apiKey, OTHER_PROGRAM);
    const before = sent('/0/private/AddOrder');
    const placed = await o.place(trader, KRAKEN_LIMIT_BUY);
    assert.equal(placed.statusCode, 201, placed.body);
    const order = placed.json();
    assert.equal(order.status, 'rejected', placed.body);
    assert.match(order.reason, /nonce/i);
    assert.equal(sent('/0/private/AddOrder') - before, 1, 'sent once');

    const pass = await o.t.modules.orders.reconcile();
    assert.equal(pass.failed, 0);
    assert.equal(sent('/0/private/AddOrder') - before, 1, 'never sent again');
    assert.equal(ordersOf(account).length, 0, 'nothing placed at Kraken');
    assert.equal((await o.inject('GET', `/api/orders/${order.id}`, trader.headers)).json().status, 'rejected');
  });

  it('a read is asked once more with a new nonce, then answers why and what to do', async () => {
    fake.acceptedNonce(account.apiKey, OTHER_PROGRAM * 2n);
    const before = fake.requests.filter((r) => r.path.startsWith('/0/private/Balance')).length;
    const synced = await o.inject('POST', '/api/exchange/balance/sync?exchange=kraken', trader.headers);
    assert.equal(synced.statusCode, 200, synced.body);
    assert.equal(synced.json().success, false, synced.body);
    assert.match(synced.json().error, /another program is using this API key/);
    const asked = fake.requests.filter((r) => r.path.startsWith('/0/private/Balance')).length - before;
    assert.equal(asked, 2, 'asked once more, then no more');
  });
});
