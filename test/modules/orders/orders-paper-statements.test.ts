// What a paper market order costs the database, counted in statements (decision 340): a count does not
// depend on the machine's load, so it is the figure a change to the order path can be held to. Each
// statement is a round trip and work at both ends on the cores the app shares with PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { inSeries, recordStatements, type TimedStatement } from '../../helpers/statements.ts';
import { waitFor } from '../../helpers/wait.ts';
import { startOrdersApp, type OrdersApp } from './orders-fixtures.ts';

/**
 * An order placed with an API token, its account events published and its fill heard: the events' insert
 * reads the notice's preferences too (decision 870).
 */
const PAPER_ORDER_STATEMENTS = 9;
/**
 * Of them, the round trips its answer waits for one after another: the API token; the halts and limits with
 * the user's counts, one statement (decision 501); the transaction's six (the account's lock and its
 * balances' read apart, decision 970); none after it: the order's write reads the limits the
 * daily loss check weighs (decision 461).
 */
const PAPER_ORDER_IN_SERIES = 8;
/**
 * The account events' notify on the bus, its channel a parameter; not the order's write, which names the resting
 * watch's channel in its text (decision 640).
 */
const BUS_NOTIFY = /pg_notify\(\$/;
/** What runs beside the answer, never awaited by it: the account events' insert (their notify, the notice preferences). */
const BESIDE_THE_ANSWER = new RegExp(`stream_events|notification_preferences|${BUS_NOTIFY.source}`);

describe('the statements of a paper market order', () => {
  let o: OrdersApp;
  before(async () => {
    o = await startOrdersApp({ env: { MARKET_UPSTREAM_TIMEOUT_MS: '10000' } });
  });
  after(async () => {
    await o?.close();
  });

  it(`takes ${PAPER_ORDER_STATEMENTS} with an API token (a transaction of six among them)`, async () => {
    const token = await o.tradingToken(await o.trader());
    const recorded = recordStatements(o.t.database);
    // After the answer: the account events stored and sent on the bus (PostgreSQL's NOTIFY in a test
    // app), reading the user's choices for the fill's notice beside them (decision 870).
    const afterTheAnswer = () =>
      waitFor(
        () =>
          [/stream_events/, /notification_preferences/, BUS_NOTIFY].every((r) => recorded.texts.some((t) => r.test(t))),
        'the work after the answer',
        30_000,
      );
    let texts: string[];
    let timed: TimedStatement[];
    try {
      // The first order opens the paper account and reads the market; the second is any order.
      const first = await o.place(token, { mode: 'paper', amount: '0.001' });
      assert.equal(first.statusCode, 201, first.body);
      await afterTheAnswer();
      recorded.clear();
      const placed = await o.place(token, { mode: 'paper', amount: '0.001' });
      assert.equal(placed.statusCode, 201, placed.body);
      assert.equal(placed.json().status, 'filled');
      await afterTheAnswer();
      texts = [...recorded.texts];
      timed = [...recorded.timed];
    } finally {
      recorded.stop();
    }
    const listed = texts.map((t) => t.replace(/\s+/g, ' ').slice(0, 80)).join('\n');
    const begins = texts.filter((t) => /^\s*begin\b/i.test(t)).length;
    assert.equal(begins, 1, listed);
    const inside = texts.findIndex((t) => /^\s*commit\b/i.test(t)) - texts.findIndex((t) => /^\s*begin\b/i.test(t)) + 1;
    assert.equal(inside, 6, listed);
    assert.equal(texts.length, PAPER_ORDER_STATEMENTS, listed);
    // The user's counts are read by the halts' and limits' statement, not by one of their own (decision 501).
    const gates = texts.filter((t) => /"trading_halts"/.test(t));
    assert.equal(gates.length, 1, listed);
    assert.match(gates[0]!, /FROM "orders" AS oc/);
    assert.equal(texts.filter((t) => /count\(\*\)/.test(t)).length, 1, listed);
    assert.equal(inSeries(timed.filter((s) => !BESIDE_THE_ANSWER.test(s.text))), PAPER_ORDER_IN_SERIES, listed);
  });
});
