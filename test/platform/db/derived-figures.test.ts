// The figures the database keeps (trade days, user counts, revenue; docs/decisions/124) stay exact
// whatever writes the rows: random rounds of bulk SQL inserts, updates that move rows between days,
// statuses and tiers, deletes and concurrent writers, each round compared with a recomputation from
// the rows. Then what the API answers from them (trade statistics and totals over random windows,
// deep pages of trades and of users, the platform statistics) is compared with the same questions
// asked of the rows directly.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it as nodeIt } from 'node:test';
import { sql } from 'drizzle-orm';
import { reconcileFigures } from '../../../src/platform/db/derived-figures.ts';
import { DERIVED_FIGURES } from '../../../src/declarations.ts';
import { createTradesRepository } from '../../../src/modules/exchange/trades.repository.ts';
import { plansOf, rowsRead } from '../../helpers/plans.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

const DAY = 86_400_000;
/** The trades span these days; windows and timestamps fall on and beside their boundaries. */
const FIRST_DAY = Date.UTC(2026, 2, 1);
const DAYS = 40;

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!,
  };
}

const SEED = Number(process.env.FIGURES_SEED ?? 20261127);

/** A test whose failure names the seed it ran with, so the run can be replayed (FIGURES_SEED=... npm test -- this file). */
function it(name: string, fn: () => Promise<void>): void {
  nodeIt(name, async () => {
    try {
      await fn();
    } catch (error) {
      if (error instanceof Error) error.message += `\n(replay: FIGURES_SEED=${SEED} npm test -- ${FILE})`;
      throw error;
    }
  });
}
const FILE = 'test/platform/db/derived-figures.test.ts';

/** A number of its own for each test, from its name: a test draws the same values run alone or after the others. */
const nameSeed = (name: string) => [...name].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0, SEED >>> 0);

describe('figures kept by the database', () => {
  let t: TestApp;
  let trader: TestUser;
  let admin: TestUser;
  let rnd = random(SEED);
  beforeEach((context) => {
    rnd = random(nameSeed(context.name));
  });

  before(async () => {
    t = await buildTestApp();
    trader = await signIn(t.app, t.database);
    admin = await signIn(t.app, t.database, { role: 'admin' });
  });
  after(() => t.close());

  /**
   * One statement, its `random()` seeded from the test's generator: setseed holds for the session,
   * so both run in one transaction (one connection of a pool).
   */
  const exec = (query: ReturnType<typeof sql>) => {
    // Drawn now, not when the transaction begins: concurrent writers draw in the order they are called.
    const seed = rnd.next() * 2 - 1;
    return t.database.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT setseed(${seed})`);
      return tx.execute(query);
    });
  };
  const rows = <T>(query: ReturnType<typeof sql>) => t.database.rows<T>(query);
  const differences = async () =>
    (await reconcileFigures(t.database.db, DERIVED_FIGURES, { mend: false })).filter(
      (d) => d.missing + d.extra + d.differing > 0,
    );

  /** A timestamp near a day boundary half the time (exactly on it, or a microsecond either side). */
  function tradeTime(): string {
    const day = FIRST_DAY + rnd.int(DAYS) * DAY;
    const at = rnd.next() < 0.5 ? day + rnd.pick([0, 0, -0.001, 0.001]) : day + rnd.int(DAY);
    const micros = Math.round(at * 1000);
    return new Date(Math.floor(micros / 1000))
      .toISOString()
      .replace('Z', `${String(((micros % 1000) + 1000) % 1000).padStart(3, '0')}Z`);
  }

  /** One multi-row INSERT of `n` trades for the given users, as a bulk import writes them. */
  async function importTrades(userIds: string[], n: number, tag: string) {
    const values = Array.from({ length: n }, (_, i) => {
      const failed = rnd.next() < 0.05;
      const total = failed ? null : (rnd.int(1_000_000) / 1000).toFixed(3);
      const fee = failed ? null : (rnd.int(1000) / 100000).toFixed(5);
      return sql`(${rnd.pick(userIds)}::uuid, ${rnd.pick(['binance', 'kraken'])}, ${`${tag}-${i}`},
        ${rnd.pick(['BTC/USDT', 'ETH/USDT', 'SOL/BTC'])}, ${rnd.pick(['buy', 'sell'])}, ${total}::numeric,
        ${fee}::numeric, ${tradeTime()}::timestamptz, ${failed ? 'failed' : 'synced'})`;
    });
    await exec(
      sql`INSERT INTO exchange_trades (user_id, exchange, exchange_trade_id, symbol, side, total, fee,
        trade_timestamp, sync_status) VALUES ${sql.join(values, sql`, `)}`,
    );
  }

  it(
    'stay equal to a recomputation after random rounds ' + 'of inserts, updates, deletes and concurrent writers',
    async () => {
      const others = await rows<{ id: string }>(sql`
      INSERT INTO users (email, password_hash, status, role, subscription_tier, created_at, grace_period_ends_at)
      SELECT 'figures-' || g || '@example.com', 'x', (ARRAY['active','suspended','deleted'])[1 + g % 3],
        (ARRAY['user','admin'])[1 + (g / 7) % 2],
             (ARRAY['free','basic','pro','enterprise'])[1 + g % 4], timestamptz '2025-01-15' + g * interval '9 days',
             CASE WHEN g % 3 = 0 THEN timestamptz '2025-06-01' + g * interval '1 day' END
      FROM generate_series(1, 60) AS g RETURNING id`);
      const userIds = [trader.id, ...others.slice(0, 4).map((r) => r.id)];
      for (let round = 0; round < 6; round += 1) {
        await importTrades(userIds, 150 + rnd.int(150), `r${round}`);
        // Concurrent writers (separate connections on PostgreSQL) adding to the same days.
        await Promise.all([0, 1, 2, 3].map((w) => importTrades(userIds, 40, `r${round}w${w}`)));
        // Updates that move trades between days, sides and statuses, and one that changes nothing summed.
        await exec(sql`UPDATE exchange_trades SET trade_timestamp = trade_timestamp +
          ${`${rnd.int(72) - 36} hours`}::interval
        WHERE exchange_trade_id LIKE ${`r${round}-%`} AND random() < 0.3`);
        await exec(sql`UPDATE exchange_trades SET side = CASE side WHEN 'buy' THEN 'sell' ELSE 'buy' END,
          sync_status = 'failed', total = NULL
        WHERE exchange_trade_id LIKE ${`r${round}w1-%`} AND random() < 0.5`);
        await exec(
          sql`UPDATE exchange_trades SET credential_id = NULL WHERE exchange_trade_id LIKE ${`r${round}w2-%`}`,
        );
        await exec(sql`DELETE FROM exchange_trades WHERE random() < 0.08 AND exchange_trade_id NOT LIKE 'keep-%'`);
        // Accounts: moved between statuses, roles and tiers and months, some deleted.
        await exec(
          sql`UPDATE users SET status = (ARRAY['active','suspended','deleted'])[1 + floor(random() * 3)::int]
            WHERE email LIKE 'figures-%' AND random() < 0.3`,
        );
        await exec(
          sql`UPDATE users SET subscription_tier = 'pro', created_at = created_at - interval '40 days'
            WHERE email LIKE 'figures-%' AND random() < 0.2`,
        );
        // Grace periods opened, moved and ended, as billing and a bulk import write them.
        await exec(sql`UPDATE users SET grace_period_ends_at = CASE WHEN random() < 0.3 THEN NULL
          ELSE now() + (random() * 10 - 5) * interval '1 day' END
        WHERE email LIKE 'figures-%' AND random() < 0.4`);
        await exec(sql`UPDATE users SET last_login = now()`);
        await exec(
          sql`DELETE FROM users WHERE email LIKE 'figures-%' AND id <> ALL(${`{${userIds.join(',')}}`}::uuid[])
            AND random() < 0.05`,
        );
        // The payments ledger, in several currencies and cases.
        await exec(sql`INSERT INTO payments_ledger (external_id, amount, currency, occurred_at)
        SELECT ${`pay-${round}-`} || g, round((random() * 100)::numeric, 2), (ARRAY['usd','USD','eur'])[1 + g % 3],
          now() FROM generate_series(1, 20) AS g`);
        await exec(sql`UPDATE payments_ledger SET amount = amount + 1, currency = 'gbp' WHERE random() < 0.2`);
        await exec(sql`DELETE FROM payments_ledger WHERE random() < 0.1`);
        // Sessions (revoked, expiring on several days), webhook deliveries, intel events and tasks, kept as counts.
        await exec(sql`INSERT INTO device_sessions (user_id, expires_at, revoked_at, last_seen_at)
        SELECT ${rnd.pick(userIds.slice(1))}::uuid, now() + (g % 9 - 2) * interval '13 hours',
          CASE WHEN g % 4 = 0 THEN now() END, now() FROM generate_series(1, 30) AS g`);
        // Never the signed-in trader's and admin's own sessions, which the later tests use.
        const notSignedIn = sql`user_id NOT IN (${trader.id}::uuid, ${admin.id}::uuid)`;
        await exec(sql`UPDATE device_sessions SET revoked_at = now() WHERE ${notSignedIn} AND random() < 0.15`);
        await exec(
          sql`UPDATE device_sessions SET expires_at = expires_at + interval '1 day', last_seen_at = now()
            WHERE ${notSignedIn} AND random() < 0.2`,
        );
        await exec(sql`DELETE FROM device_sessions WHERE ${notSignedIn} AND random() < 0.1`);
        await exec(sql`INSERT INTO webhook_deliveries (provider, delivery_id, event, payload, status, received_at)
        SELECT (ARRAY['payments','codehost','tracker'])[1 + g % 3], ${`r${round}-`} || g, 'e', '{}'::jsonb,
          (ARRAY['processed','unmatched','failed'])[1 + g % 3],
               now() - g * interval '37 minutes' FROM generate_series(1, 40) AS g`);
        await exec(
          sql`UPDATE webhook_deliveries SET status = 'processed' WHERE status = 'unmatched' AND random() < 0.3`,
        );
        await exec(sql`DELETE FROM webhook_deliveries WHERE random() < 0.1`);
        await exec(sql`INSERT INTO market_intel_events (event_type, asset, symbol, direction, source, trust_tier,
          strength, detected_at, outcome_pct)
        SELECT 'signal', 'BTC', 'BTCUSDT', (ARRAY['bullish','bearish'])[1 + g % 2],
          (ARRAY['news','agent'])[1 + g / 3 % 2], (ARRAY['standard','quarantined'])[1 + (g / 5) % 2],
               0.5, now() - g * interval '1 hour', CASE WHEN g % 4 = 0 THEN NULL ELSE (g % 7 - 3)::float8 END
                 FROM generate_series(1, 40) AS g`);
        await exec(sql`UPDATE market_intel_events SET outcome_pct = 1.5 WHERE outcome_pct IS NULL AND random() < 0.4`);
        await exec(sql`DELETE FROM market_intel_events WHERE random() < 0.1`);
        await exec(sql`INSERT INTO command_center_tasks (title, repo, status, priority, assignee, source_type, created_at)
        SELECT 't' || g, 'r', (ARRAY['todo','in_progress','done'])[1 + g % 3],
          (ARRAY['low','medium','high'])[1 + g % 3], CASE WHEN g % 2 = 0 THEN 'agent-' || g % 4 END,
               (ARRAY['human','agent'])[1 + g % 2], now() - (g % 5) * interval '1 day'
               FROM generate_series(1, 30) AS g`);
        await exec(sql`UPDATE command_center_tasks SET status = 'done', assignee = NULL WHERE random() < 0.2`);
        await exec(
          sql`UPDATE command_center_tasks SET created_at = created_at - interval '1 day' WHERE random() < 0.1`,
        );
        await exec(sql`DELETE FROM command_center_tasks WHERE random() < 0.1`);
        assert.deepEqual(await differences(), [], `round ${round} (FIGURES_SEED=${SEED})`);
      }
      const [{ n }] = await rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM exchange_trades`);
      assert.ok(n > 1000, `${n} trades written`);
    },
  );

  it('are found out when they differ (the comparison can fail), and rebuilt', async () => {
    // Rows of its own in each kept table it spoils, whatever ran before.
    await importTrades([trader.id], 50, 'spoil');
    await exec(
      sql`UPDATE exchange_trade_days SET total_volume = total_volume + 1
        WHERE ctid = (SELECT ctid FROM exchange_trade_days LIMIT 1)`,
    );
    await exec(sql`DELETE FROM user_counts WHERE ctid = (SELECT ctid FROM user_counts LIMIT 1)`);
    await exec(sql`UPDATE exchange_trade_counts SET total_trades = total_trades - 1
      WHERE ctid = (SELECT ctid FROM exchange_trade_counts LIMIT 1)`);
    assert.deepEqual(
      (await differences()).map((d) => [d.table, d.missing, d.extra, d.differing]),
      [
        ['user_counts', 1, 0, 0],
        ['exchange_trade_days', 0, 0, 1],
        ['exchange_trade_counts', 0, 0, 1],
      ],
    );
    await reconcileFigures(t.database.db, DERIVED_FIGURES, { mend: true });
    assert.deepEqual(await differences(), []);
  });

  it('answer trade statistics and totals over random windows as the trades do', async () => {
    await importTrades([trader.id], 2600, 'keep');
    for (let i = 0; i < 25; i += 1) {
      const a = FIRST_DAY + rnd.int(DAYS + 2) * DAY - DAY + rnd.pick([0, 1, rnd.int(DAY)]);
      const b = a + rnd.pick([0, 1, DAY - 1, DAY, 3 * DAY + rnd.int(DAY), 20 * DAY]);
      const exchange = rnd.pick([undefined, 'binance', 'kraken']);
      const query = new URLSearchParams({
        start_date: new Date(a).toISOString(),
        end_date: new Date(b).toISOString(),
        ...(exchange ? { exchange } : {}),
      });
      const answered = await t.app.inject({
        method: 'GET',
        url: `/api/exchange/trades/stats?${query}`,
        headers: trader.headers,
      });
      assert.equal(
        answered.statusCode,
        200,
        `${answered.body} ${JSON.stringify(
          t
            .logLines()
            .filter((l) => Number(l.level) >= 50)
            .at(-1),
        )}`,
      );
      const [truth] = await rows<Record<string, unknown>>(sql`
        SELECT count(*)::int AS total_trades, (count(*) FILTER (WHERE side = 'buy'))::int AS buy_count,
          (count(*) FILTER (WHERE side = 'sell'))::int AS sell_count,
          (count(*) FILTER (WHERE sync_status = 'synced'))::int AS synced_count,
            (count(*) FILTER (WHERE sync_status = 'failed'))::int AS failed_count,
          coalesce(sum(total), 0)::float8 AS total_volume, coalesce(sum(fee), 0)::float8 AS total_fees,
            min(trade_timestamp) AS first, max(trade_timestamp) AS last
        FROM exchange_trades WHERE user_id = ${trader.id} AND trade_timestamp >= ${new Date(a)}
          AND trade_timestamp <= ${new Date(b)}
          ${exchange ? sql`AND exchange = ${exchange}` : sql``}`);
      const got = answered.json();
      const window = `window ${query} (FIGURES_SEED=${SEED})`;
      for (const field of [
        'total_trades',
        'buy_count',
        'sell_count',
        'synced_count',
        'failed_count',
        'total_volume',
        'total_fees',
      ]) {
        assert.equal(got[field], Number(truth![field]), `${field} of ${window}`);
      }
      assert.equal(
        got.first_trade && Date.parse(got.first_trade),
        truth!.first ? new Date(truth!.first as string).getTime() : null,
        `first_trade of ${window}`,
      );
      assert.equal(
        got.last_trade && Date.parse(got.last_trade),
        truth!.last ? new Date(truth!.last as string).getTime() : null,
        `last_trade of ${window}`,
      );
    }
  });

  it('serve deep pages of trades and their total as OFFSET over the trades would', async () => {
    // Enough of one venue's trades that every window below has deep pages in both of its halves.
    await exec(sql`INSERT INTO exchange_trades (user_id, exchange, exchange_trade_id, symbol, side, total, fee,
        trade_timestamp, sync_status)
      SELECT ${trader.id}::uuid, 'binance', 'deep-' || g, (ARRAY['BTC/USDT', 'ETH/USDT', 'SOL/BTC'])[1 + g % 3],
        (ARRAY['buy', 'sell'])[1 + g % 2], 1, 0,
        ${new Date(FIRST_DAY).toISOString()}::timestamptz + (g * 571) % ${DAYS * 86_400} * interval '1 second', 'synced'
      FROM generate_series(1, 9000) AS g`);
    const windows = [
      '',
      `&start_date=${new Date(FIRST_DAY + 3 * DAY + 5).toISOString()}` +
        `&end_date=${new Date(FIRST_DAY + 30 * DAY - 1).toISOString()}`,
      '&symbol=btcusdt',
    ];
    for (const query of windows) {
      const params = new URLSearchParams(query);
      const start = params.get('start_date');
      const end = params.get('end_date');
      const where = sql`user_id = ${trader.id} AND exchange = 'binance'
        ${start ? sql`AND trade_timestamp >= ${new Date(start)}` : sql``}
        ${end ? sql`AND trade_timestamp <= ${new Date(end)}` : sql``}
        ${params.get('symbol') ? sql`AND replace(symbol, '/', '') = 'BTCUSDT'` : sql``}`;
      const [{ n }] = await rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM exchange_trades WHERE ${where}`);
      // Deep pages are found from the nearer end of the window's days: both halves, their border, the
      // last rows, and past the end.
      const half = Math.floor(n / 2);
      const offsets = [0, 999, 1000, 1100, 1203, half - 1, half, half + 1, n - 9, n - 1, n, n + 7, 5000];
      assert.ok(half > 1000, `the trades reach deep enough for both walks (${n} in ${query || 'all'})`);
      for (const offset of offsets) {
        const answered = await t.app.inject({
          method: 'GET',
          url: `/api/exchange/trades?exchange=binance&limit=9&offset=${offset}${query}`,
          headers: trader.headers,
        });
        assert.equal(answered.statusCode, 200, answered.body);
        const expected = await rows<{ id: string }>(
          sql`SELECT id FROM exchange_trades WHERE ${where}
            ORDER BY trade_timestamp DESC, id DESC LIMIT 9 OFFSET ${offset}`,
        );
        const got = answered.json();
        assert.deepEqual(
          got.trades.map((trade: { id: string }) => trade.id),
          expected.map((r) => r.id),
          `offset ${offset}${query}`,
        );
        assert.equal(got.total_records, n, `total_records at offset ${offset}${query}`);
      }
    }

    // The total reads the venue's days once; a deep page's start reads them from the oldest, up to its
    // day only: near the end of the history, far fewer than the days again.
    const [{ days, trades }] = await rows<{ days: number; trades: number }>(sql`SELECT count(*)::int AS days,
        sum(total_trades)::int AS trades FROM exchange_trade_days WHERE user_id = ${trader.id} AND exchange = 'binance'`);
    const offset = trades - 1000;
    const [plan] = await plansOf(t, (db) =>
      createTradesRepository(db).list({ userId: trader.id, exchange: 'binance' }, { limit: 9, offset }),
    );
    const read = rowsRead(plan!, 'exchange_trade_days');
    assert.ok(read < days * 1.5, `day rows read at offset ${offset}: ${read}, of ${days}`);
  });

  it('serve deep pages of users, their totals and the platform statistics as the accounts would', async () => {
    await exec(sql`INSERT INTO users (email, password_hash, status, subscription_tier, created_at)
      SELECT 'page-' || g || '@example.com', 'x', (ARRAY['active','active','suspended','deleted'])[1 + g % 4],
        (ARRAY['free','pro'])[1 + g % 2],
             timestamptz '2024-06-01' + g * interval '7 hours' + (g % 5) * interval '1 microsecond'
      FROM generate_series(1, 2600) AS g`);
    for (const [page, filter] of [
      [1, ''],
      [21, ''],
      [38, ''],
      [25, '&status=active'],
      [13, '&subscriptionTier=pro&status=suspended'],
      [60, ''],
    ] as const) {
      const answered = await t.app.inject({
        method: 'GET',
        url: `/api/admin/users?page=${page}&limit=50${filter}`,
        headers: admin.headers,
      });
      assert.equal(answered.statusCode, 200, answered.body);
      const params = new URLSearchParams(filter);
      const where = sql`${params.get('status') ? sql`status = ${params.get('status')}` : sql`status <> 'deleted'`}
        ${params.get('subscriptionTier') ? sql`AND subscription_tier = ${params.get('subscriptionTier')}` : sql``}`;
      const expected = await rows<{ id: string }>(
        sql`SELECT id FROM users WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT 50 OFFSET ${(page - 1) * 50}`,
      );
      const [{ n }] = await rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM users WHERE ${where}`);
      const got = answered.json();
      assert.deepEqual(
        got.users.map((u: { id: string }) => u.id),
        expected.map((r) => r.id),
        `page ${page}${filter}`,
      );
      assert.equal(got.total, n, `total of page ${page}${filter}`);
    }
    const stats = await t.app.inject({ method: 'GET', url: '/api/admin/stats', headers: admin.headers });
    assert.equal(stats.statusCode, 200, stats.body);
    const [truth] = await rows<
      Record<string, number>
    >(sql`SELECT (count(*) FILTER (WHERE status <> 'deleted'))::int AS "totalUsers",
      (count(*) FILTER (WHERE status = 'active'))::int AS "activeUsers",
        (count(*) FILTER (WHERE status = 'suspended'))::int AS "suspendedUsers",
      (count(*) FILTER (WHERE status <> 'deleted'
        AND created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'))::int AS "newUsersThisMonth"
      FROM users`);
    const got = stats.json();
    assert.deepEqual(
      {
        totalUsers: got.totalUsers,
        activeUsers: got.activeUsers,
        suspendedUsers: got.suspendedUsers,
        newUsersThisMonth: got.newUsersThisMonth,
      },
      truth,
    );
    const [revenue] = await rows<{ usd: number }>(
      sql`SELECT coalesce(sum(amount) FILTER (WHERE upper(currency) = 'USD'), 0)::float8 AS usd FROM payments_ledger`,
    );
    assert.equal(got.totalRevenue, revenue!.usd);
    assert.deepEqual(await differences(), []);
  });
});
