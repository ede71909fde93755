// What a live market order costs the database, counted in statements (decisions 345, 385, 386, 420, 440): a count
// does not depend on the machine's load. Each statement is a round trip through the app's busy event loop
// and a commit waits for the disk, so fewer of each is a shorter order as well as a cheaper one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { inSeries, recordStatements, type TimedStatement } from '../../helpers/statements.ts';
import { waitFor } from '../../helpers/wait.ts';
import { startOrdersApp, type OrdersApp } from './orders-fixtures.ts';

/**
 * An order placed with an API token, filled at once, its account events published and its fill heard: the
 * events' insert reads the notice's preferences too (decision 870).
 */
const LIVE_ORDER_STATEMENTS = 5;
/**
 * Of them, the round trips its answer waits for one after another: the API token; the halts and limits with
 * the user's counts and the credential, one statement (decisions 501, 650); the claim; the answer, which reads
 * the limits the daily loss check weighs (decision 461).
 */
const LIVE_ORDER_IN_SERIES = 4;
/** What runs beside the answer, never awaited by it: the account events' insert, reading the notice preferences. */
const BESIDE_THE_ANSWER = /stream_events|notification_preferences/;
/** How long the claim's events wait for the answer's (order-publisher.ts); past it they are stored alone. */
const CLAIMED_EVENTS_HELD_MS = 250;

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
        () => recorded.texts.some((t) => /stream_events[\s\S]*notification_preferences/.test(t)),
        'the work after the answer',
        30_000,
      );
    let texts: string[];
    let timed: TimedStatement[];
    let roundTripMs: number;
    let placed: Awaited<ReturnType<typeof o.place>>;
    try {
      const first = await o.place(token, { amount: '0.001' });
      assert.equal(first.statusCode, 201, first.body);
      await afterTheAnswer();
      recorded.clear();
      const sentAt = performance.now();
      placed = await o.place(token, { amount: '0.001' });
      roundTripMs = performance.now() - sentAt;
      assert.equal(placed.statusCode, 201, placed.body);
      assert.equal(placed.json().status, 'filled');
      await afterTheAnswer();
      texts = [...recorded.texts];
      timed = [...recorded.timed];
    } finally {
      recorded.stop();
    }
    const listed = texts.map((t) => t.replace(/\s+/g, ' ').slice(0, 100)).join('\n');
    const onThePath = timed.filter((s) => !BESIDE_THE_ANSWER.test(s.text));
    assert.equal(inSeries(onThePath), LIVE_ORDER_IN_SERIES, listed);
    // A round trip that outlived the hold (a loaded machine) stores the claim's events alone: one insert
    // more, and only that. Within the hold there is no way to a second insert.
    const eventInserts = texts.filter((t) => /INSERT INTO "stream_events"/.test(t)).length;
    if (roundTripMs >= CLAIMED_EVENTS_HELD_MS && eventInserts === 2)
      assert.equal(texts.length, LIVE_ORDER_STATEMENTS + 1, listed);
    else assert.equal(texts.length, LIVE_ORDER_STATEMENTS, listed);
    // The user's counts are read by the halts' and limits' statement, not by one of their own (decision 501).
    const gates = texts.filter((t) => /"trading_halts"/.test(t));
    assert.equal(gates.length, 1, listed);
    assert.match(gates[0]!, /FROM "orders" AS oc/);
    assert.equal(texts.filter((t) => /count\(\*\)/.test(t)).length, 1, listed);
    // So is the credential the order trades with, not by a statement of its own on another connection (decision 650).
    assert.match(gates[0]!, /FROM "exchange_credentials" AS ec/);
    assert.equal(texts.filter((t) => /"exchange_credentials"/.test(t)).length, 1, listed);
    // The API token is read once: the live order's step-up check uses the user the route's guard let in.
    assert.equal(texts.filter((t) => /"api_tokens"\."token_hash" = /.test(t)).length, 1, listed);
    // The claim commits on its own, flushed to disk before the send; the answer is one statement (its row as
    // the claim left it, its fill, the user's trade, its audit entry: decision 420) whose commit does not wait
    // for the disk (decision 386). No transaction of several statements on the order's path.
    const claim = texts.findIndex((t) => /^\s*WITH claimed AS \(INSERT INTO "orders"/.test(t));
    const answer = texts.findIndex((t) => /^\s*WITH unflushed AS/.test(t));
    assert.ok(claim >= 0 && answer > claim, listed);
    assert.ok(!/synchronous_commit/.test(texts[claim]!), texts[claim]);
    assert.match(texts[answer]!, /set_config\('synchronous_commit', 'off', true\)/);
    assert.match(
      texts[answer]!,
      /INSERT INTO "order_fills"[\s\S]*INSERT INTO "exchange_trades"[\s\S]*INSERT INTO "audit_log"/,
    );
    assert.ok(!texts.some((t) => /^\s*(BEGIN|COMMIT)\b/i.test(t)), listed);
    // Neither write reads the order's row back column by column (decision 550): the claim answers the row's
    // version, the answer the amounts as stored; the order answered is the row as stored all the same.
    assert.match(texts[claim]!, /SELECT row_version FROM claimed$/);
    assert.doesNotMatch(texts[answer]!, /moved\.\*/);
    const stored = await o.inject('GET', `/api/orders/${placed.json().id}`, token.headers);
    assert.equal(stored.statusCode, 200, stored.body);
    const { fills: _fills, ...storedOrder } = stored.json();
    assert.deepEqual(placed.json(), storedOrder);
  });

  it('applies an answer to an order changed since its claim under its lock, once', async () => {
    const trader = await o.trader();
    // The venue fills the order at once and answers late; meanwhile the reconcile pass finds it filled there.
    o.book.fault('slow-after', { ms: 1500, apiKey: trader.account.apiKey });
    const recorded = recordStatements(o.t.database);
    let texts: string[];
    let placed: Awaited<ReturnType<typeof o.place>>;
    try {
      const sending = o.place(trader, { amount: '0.001' });
      await waitFor(() => o.book.of(trader.account.apiKey).length === 1, 'the order at the venue', 30_000);
      const run = await o.t.modules.orders.reconcile();
      assert.ok(run.changed >= 1, JSON.stringify(run));
      placed = await sending;
      texts = [...recorded.texts];
    } finally {
      recorded.stop();
    }
    assert.equal(placed.statusCode, 201, placed.body);
    assert.equal(placed.json().status, 'filled');
    // The answer's one statement found the row moved on and wrote nothing; its lock then found it final.
    const answer = texts.findIndex((t) => /^\s*WITH unflushed AS/.test(t));
    assert.ok(answer >= 0 && texts.slice(answer + 1).some((t) => /FOR UPDATE OF o/.test(t)));
    const id = placed.json().id as string;
    const [counted] = await o.t.database.rows<{ moves: number; fills: number; trades: number }>(
      sql`SELECT
        (SELECT count(*)::int FROM audit_log WHERE target_id = ${id} AND action = 'order.transition'
          AND details->>'to' = 'filled') AS moves,
        (SELECT count(*)::int FROM order_fills WHERE order_id = ${id}::uuid) AS fills,
        (SELECT count(*)::int FROM exchange_trades t JOIN order_fills f ON f.trade_id = t.exchange_trade_id
          WHERE f.order_id = ${id}::uuid AND t.user_id = ${trader.id}::uuid) AS trades`,
    );
    assert.deepEqual(counted, { moves: 1, fills: 1, trades: 1 });
    assert.equal(o.book.of(trader.account.apiKey).length, 1);
  });
});
