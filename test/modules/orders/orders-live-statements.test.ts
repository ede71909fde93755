// What a live market order costs the database, counted in statements (decisions 345, 385, 386): a count
// does not depend on the machine's load. Each statement is a round trip through the app's busy event loop
// and a commit waits for the disk, so fewer of each is a shorter order as well as a cheaper one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordStatements } from '../../helpers/statements.ts';
import { waitFor } from '../../helpers/wait.ts';
import { startOrdersApp, type OrdersApp } from './orders-fixtures.ts';

/** An order placed with an API token, filled at once, its account events published and its fill heard. */
const LIVE_ORDER_STATEMENTS = 17;

describe('the statements of a live market order', () => {
  let o: OrdersApp;
  before(async () => {
    o = await startOrdersApp({ env: { EXCHANGE_TIMEOUT_MS: '60000', MARKET_UPSTREAM_TIMEOUT_MS: '10000' } });
  });
  after(async () => {
    await o?.close();
  });

  it(`takes ${LIVE_ORDER_STATEMENTS} with an API token`, async () => {
    const token = await o.tradingToken(await o.trader());
    const recorded = recordStatements(o.t.database);
    const afterTheAnswer = () =>
      waitFor(
        () =>
          [/stream_events/, /notification_preferences/, /pg_notify\(\$5, \$6\)/].every((r) =>
            recorded.texts.some((t) => r.test(t)),
          ),
        'the work after the answer',
        30_000,
      );
    let texts: string[];
    try {
      const first = await o.place(token, { amount: '0.001' });
      assert.equal(first.statusCode, 201, first.body);
      await afterTheAnswer();
      recorded.texts.length = 0;
      const placed = await o.place(token, { amount: '0.001' });
      assert.equal(placed.statusCode, 201, placed.body);
      assert.equal(placed.json().status, 'filled');
      await afterTheAnswer();
      // A bus message of one event is not this order's (its events go out as one message of three): the
      // tail of the trader's setup (the credential's events) may reach the bus this late.
      texts = recorded.texts.filter((t) => !/^\s*SELECT pg_notify\(\$1, \$2\)\s*$/i.test(t));
    } finally {
      recorded.stop();
    }
    const listed = texts.map((t) => t.replace(/\s+/g, ' ').slice(0, 100)).join('\n');
    assert.equal(texts.length, LIVE_ORDER_STATEMENTS, listed);
    // The claim commits on its own, flushed to disk before the send; the answer's transaction does not wait
    // for the disk (decision 386), asked in its lock's round trip.
    const claim = texts.findIndex((t) => /^\s*WITH claimed AS \(INSERT INTO "orders"/.test(t));
    const lock = texts.findIndex((t) => /FOR UPDATE OF o/.test(t));
    assert.ok(claim >= 0 && lock > claim, listed);
    assert.ok(!/synchronous_commit/.test(texts[claim]!), texts[claim]);
    assert.match(texts[lock]!, /set_config\('synchronous_commit', 'off', true\)/);
  });
});
