// A daily loss check is owed in the database from the fill's own write (decision 1030): what a process stopped
// before its check leaves (a fill past the limit, stored, no halt) is made by the next reconcile pass, on any
// instance, or before the user's next order, whichever comes first; either way that order is refused. A fill of a user with a daily loss limit writes the check owed
// in its own statement and its check settles it; a user without one writes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { createDailyLossOwedRepository } from '../../../src/modules/orders/daily-loss-owed.repository.ts';
import { recordStatements } from '../../helpers/statements.ts';
import { startOrdersApp, type OrdersApp, type Trader } from './orders-fixtures.ts';

describe('a daily loss check owed', () => {
  let o: OrdersApp;
  before(async () => {
    o = await startOrdersApp();
  });
  after(async () => {
    await o?.close();
  });

  const owed = async (trader: Trader) =>
    (
      await o.t.database.rows<{ n: number }>(
        sql`SELECT count(*)::int AS n FROM daily_loss_checks_owed WHERE user_id = ${trader.id}::uuid`,
      )
    )[0]!.n;
  const status = async (trader: Trader) => (await o.inject('GET', '/api/trading/status', trader.headers)).json();

  /** A buy, then a sell of most of it at a lower price: a realized loss past 5 USDT. */
  async function losingFills(trader: Trader): Promise<void> {
    assert.equal((await o.place(trader, { amount: '0.01' })).json().status, 'filled');
    const symbol = o.binance.symbols.find((s) => s.symbol === 'BTCUSDT')!;
    const price = symbol.price;
    symbol.price = '64000.00';
    try {
      const sold = await o.place(trader, { side: 'sell', amount: '0.009' });
      assert.equal(sold.json().status, 'filled', sold.body);
    } finally {
      symbol.price = price;
    }
  }

  /**
   * What a process killed before its check leaves: the losing fills stored, the limit in force, the check owed,
   * no halt. The limit comes after the fills here, so that their own checks halt nothing; the row is then what
   * the fill's statement writes for a user with the limit.
   */
  async function leftByAStoppedProcess(trader: Trader): Promise<void> {
    await losingFills(trader);
    const limits = await o.inject('PUT', '/api/trading/limits', trader.headers, { daily_loss_limit: '5' });
    assert.equal(limits.statusCode, 200, limits.body);
    await o.t.database.rows(
      sql`INSERT INTO daily_loss_checks_owed (user_id, mode, since) VALUES (${trader.id}::uuid, 'live', now())`,
    );
    assert.equal((await status(trader)).halted, false);
  }

  it('left by a process stopped before its check, is made by the next pass: halted, the next order 423', async () => {
    const trader = await o.trader();
    await leftByAStoppedProcess(trader);
    const pass = await o.t.modules.orders.reconcile();
    assert.equal(pass.failed, 0);
    const after = await status(trader);
    assert.equal(after.halted, true, JSON.stringify(after));
    assert.match(after.reason, /daily_loss_limit 5/);
    assert.equal((await o.place(trader, { amount: '0.001' })).statusCode, 423);
    assert.equal(await owed(trader), 0, 'settled by the check');
  });

  it('left by a process stopped before its check, is made before the next order, with no pass: 423', async () => {
    const trader = await o.trader();
    await leftByAStoppedProcess(trader);
    const refused = await o.place(trader, { amount: '0.001' });
    assert.equal(refused.statusCode, 423, refused.body);
    assert.match(refused.json().detail, /daily_loss_limit 5/);
    assert.equal(await owed(trader), 0, 'settled by the check');
    assert.equal(o.book.of(trader.account.apiKey).length, 2, 'the refused order never reached the venue');
  });

  it("is written by the fill's own statement for a user with a limit and settled by its check; never for one without", async () => {
    const limited = await o.trader();
    const limits = await o.inject('PUT', '/api/trading/limits', limited.headers, { daily_loss_limit: '1000' });
    assert.equal(limits.statusCode, 200, limits.body);
    const free = await o.trader();
    const recorded = recordStatements(o.t.database);
    let texts: string[];
    try {
      assert.equal((await o.place(limited, { amount: '0.001' })).json().status, 'filled');
      texts = [...recorded.texts];
      recorded.clear();
      assert.equal((await o.place(free, { amount: '0.001' })).json().status, 'filled');
    } finally {
      recorded.stop();
    }
    const answer = texts.find((t) => /^\s*WITH unflushed AS/.test(t));
    assert.match(answer!, /INSERT INTO "order_fills"[\s\S]*INSERT INTO "daily_loss_checks_owed"/);
    assert.equal(texts.filter((t) => /DELETE FROM "daily_loss_checks_owed"/.test(t)).length, 1);
    assert.equal(await owed(limited), 0);
    // Without a limit the statement's condition writes nothing, and nothing is settled.
    assert.ok(!recorded.texts.some((t) => /DELETE FROM "daily_loss_checks_owed"/.test(t)), recorded.texts.join('\n'));
    assert.equal(await owed(free), 0);
    assert.equal((await status(limited)).halted, false);
  });

  it('stays owed for a fill stored after its check read the day: the delete is at the version read', async () => {
    const trader = await o.trader();
    const limits = await o.inject('PUT', '/api/trading/limits', trader.headers, { daily_loss_limit: '5' });
    assert.equal(limits.statusCode, 200, limits.body);
    const repo = createDailyLossOwedRepository(o.t.database.db, null);
    const since = new Date(Date.now() - 60_000);
    // A fill's own write owes the check; the check reads the day's fills with the row's version.
    await repo.oweDailyLossCheck(trader.id, 'live', new Date(), o.t.database.db);
    const read = await repo.dayFillsOwed(trader.id, 'live', since);
    assert.ok(read.version, 'the row is owed');
    // Another fill is stored before the check settles: the same row, a new version.
    await repo.oweDailyLossCheck(trader.id, 'live', new Date(), o.t.database.db);
    await repo.settleOwed(trader.id, 'live', read.version!);
    const still = await repo.owedChecks(10, trader.id);
    assert.equal(still.length, 1, 'the later fill is still owed its check');
    assert.notEqual(still[0]!.version, read.version);
    // The check that weighs the later fill settles it.
    await repo.settleOwed(trader.id, 'live', still[0]!.version);
    assert.equal(await owed(trader), 0);
  });
});
