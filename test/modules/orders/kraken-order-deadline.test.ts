// Kraken signs with a nonce, not a time: without a bound of its own, a send held on the way could be taken
// after a lookup had rejected the order as never received. Every Kraken order carries its `deadline`, 55 s
// after its claim, so the venue itself refuses it past the receive window the lookups allow for (decision
// 1320). Made for real: the fake reads the deadline on its own clock, which a test sets ahead. A send waits for
// its key's turn (Kraken's nonces) only while it may still be signed (decision 1350).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { clientOrderIdRule } from '../../../src/platform/client-order-ids.ts';
import { SIGN_WITHIN_MS } from '../../../src/platform/order-venue.ts';
import type { KrakenFake } from '../../fakes/kraken.ts';
import { ordersOf, type VenueAccount } from '../../fakes/venue-loopback.ts';
import { waitFor } from '../../helpers/wait.ts';
import { KRAKEN, KRAKEN_LIMIT_BUY, startKrakenTrading, type Trader, type VenueOrdersApp } from './orders-fixtures.ts';

const ADD_ORDER = '/0/private/AddOrder';
/** How long the order before holds the key's turn: longer than a send may wait to be signed. */
const HELD_MS = SIGN_WITHIN_MS + 2_000;

describe("a Kraken order's deadline", () => {
  let fake: KrakenFake;
  let o: VenueOrdersApp;
  let trader: Trader;
  let account: VenueAccount;
  before(async () => {
    // A call may hold its key's turn longer than a send may wait to be signed (the last test).
    ({ o, fake, trader, account } = await startKrakenTrading({ EXCHANGE_TIMEOUT_MS: String(HELD_MS + 2_000) }));
  });
  after(async () => {
    await o?.close();
  });

  const sends = () => fake.requests.filter((r) => r.path === ADD_ORDER);
  const stored = async (id: string) => {
    const [row] = await o.t.database.rows<{ status: string }>(sql`SELECT status FROM orders WHERE id = ${id}`);
    return row!;
  };

  it('is sent with every order: 55 s after its claim, on the venue’s clock', async () => {
    const placed = await o.place(trader, KRAKEN_LIMIT_BUY);
    assert.equal(placed.statusCode, 201, placed.body);
    assert.equal(placed.json().status, 'open', placed.body);
    const sent = sends().at(-1)!;
    const deadline = new URLSearchParams(sent.body).get('deadline');
    assert.ok(deadline, `AddOrder carries a deadline: ${sent.body}`);
    assert.match(deadline, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/, 'RFC3339');
    const ahead = Date.parse(deadline) - sent.at;
    // Claimed at most the send's signing allowance before it arrived.
    assert.ok(ahead <= 55_000 && ahead > 55_000 - SIGN_WITHIN_MS, `${ahead} ms ahead of its arrival`);
  });

  it('past it, Kraken places nothing: the order is unknown, then rejected once the window has passed, sent once', async () => {
    const before = sends().length;
    fake.clock.aheadMs = 56_000;
    try {
      const placed = await o.place(trader, KRAKEN_LIMIT_BUY);
      assert.equal(placed.statusCode, 201, placed.body);
      const order = placed.json();
      assert.equal(order.status, 'unknown', `"Deadline elapsed" says nothing of the outcome: ${placed.body}`);
      assert.equal(sends().length - before, 1);
      assert.equal(ordersOf(account).filter((v) => v.clientId === order.client_order_id).length, 0);

      // Not found while the send might still be taken: it stays unknown.
      assert.equal((await o.t.modules.orders.reconcile()).failed, 0);
      assert.equal((await stored(order.id)).status, 'unknown');

      o.clock.advance(clientOrderIdRule('kraken').receiveWindowMs + SIGN_WITHIN_MS + 1_000);
      assert.equal((await o.t.modules.orders.reconcile()).failed, 0);
      assert.equal((await stored(order.id)).status, 'rejected');
      assert.equal(sends().length - before, 1, 'never sent again');
    } finally {
      fake.clock.aheadMs = 0;
    }
  });

  it("a send waits for its key's turn only while it may still be signed: refused unsent, the call before it goes on", async () => {
    const before = sends().length;
    // The first order holds the key's turn (Kraken's nonces go one at a time) until its slow answer comes.
    o.fakes.get(KRAKEN.venue)!.fault('slow-after', { path: ADD_ORDER, ms: HELD_MS, reply5xx: KRAKEN.outage });
    const first = o.place(trader, KRAKEN_LIMIT_BUY);
    await waitFor(() => sends().length > before, 'the first order to reach Kraken');

    const second = await o.place(trader, KRAKEN_LIMIT_BUY);
    assert.equal(second.statusCode, 201, second.body);
    assert.equal(second.json().status, 'rejected', second.body);
    // Refused by the turn's wait, not by the signature once the turn came (as it was before decision 1350).
    assert.match(second.json().reason, /go one at a time .* nothing was sent/);
    assert.equal(sends().length - before, 1, 'the second never reached Kraken');

    const placed = await first;
    assert.equal(placed.json().status, 'open', placed.body);
    const ids = ordersOf(account).map((v) => v.clientId);
    assert.ok(ids.includes(placed.json().client_order_id));
    assert.ok(!ids.includes(second.json().client_order_id));
  });
});
