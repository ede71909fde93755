// A paper order that waits for its user's account lock weighs the balances as the holder of the lock left
// them (decision 970). On PostgreSQL, in READ COMMITTED, a statement reads as of its start: when the lock
// and the balances' read were one statement, the order read the balances from before the holder's commit,
// and its fill, spending what was no longer there, broke the balance's CHECK (a 500).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { signIn } from '../../helpers/test-app.ts';
import { waitFor } from '../../helpers/wait.ts';
import { startOrdersApp, type OrdersApp } from './orders-fixtures.ts';

describe('a paper order that waited for its account lock', () => {
  let o: OrdersApp;
  before(async () => {
    o = await startOrdersApp({ env: { MARKET_UPSTREAM_TIMEOUT_MS: '10000' } });
  });
  after(async () => {
    await o?.close();
  });

  const waitingForALock = async () =>
    (
      await o.t.database.rows<{ n: number }>(
        sql`SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      )
    )[0]!.n;

  it('is weighed against the balances the holder committed (PostgreSQL)', async (c) => {
    if (o.t.database.kind === 'pglite') return c.skip('PGlite runs one transaction at a time: they cannot interleave');
    const user = await signIn(o.t.app, o.t.database);
    const opened = await o.place(user, { mode: 'paper', amount: '0.001' });
    assert.equal(opened.statusCode, 201, opened.body);
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    // Another transaction holds the account, as another order of the user would, and spends the quote.
    const holder = o.t.database.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT 1 FROM paper_accounts WHERE user_id = ${user.id}::uuid FOR UPDATE`);
      await tx.execute(sql`UPDATE paper_balances SET free = 0 WHERE user_id = ${user.id}::uuid AND asset = 'USDT'`);
      locked();
      await released;
    });
    await isLocked;
    let placing: ReturnType<OrdersApp['place']> | undefined;
    try {
      placing = o.place(user, { mode: 'paper', amount: '0.001' });
      await waitFor(async () => (await waitingForALock()) === 1, 'the order waiting for the account');
    } finally {
      release();
      await holder;
    }
    const placed = await placing!;
    assert.equal(placed.statusCode, 201, placed.body);
    assert.equal(placed.json().status, 'rejected', placed.body);
    const [usdt] = await o.t.database.rows<{ free: string }>(
      sql`SELECT free::text FROM paper_balances WHERE user_id = ${user.id}::uuid AND asset = 'USDT'`,
    );
    assert.equal(Number(usdt!.free), 0);
  });

  it('many at once, past the balance: each filled or rejected, never a 500, the quote never below zero', async () => {
    const user = await signIn(o.t.app, o.t.database);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => o.place(user, { mode: 'paper', amount: '0.03' })),
    );
    for (const answer of answers) assert.equal(answer.statusCode, 201, answer.body);
    const statuses = answers.map((a) => a.json().status as string);
    assert.ok(
      statuses.every((s) => s === 'filled' || s === 'rejected'),
      statuses.join(),
    );
    assert.ok(statuses.includes('rejected'), `six orders of 0.03 BTC cost more than the start balance: ${statuses}`);
    const account = (await o.inject('GET', '/api/paper/account', user.headers)).json() as {
      balances: { asset: string; free: string }[];
    };
    const filled = statuses.filter((s) => s === 'filled').length;
    const btc = account.balances.find((b) => b.asset === 'BTC');
    assert.ok(Number(btc?.free) > 0.0299 * filled - 1e-9, JSON.stringify(account));
  });
});
