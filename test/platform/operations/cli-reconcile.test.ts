// `npm run cli -- db:reconcile` as operators run it: a file of its own, as each command starts a
// process and opens the database (cli-database.test.ts holds the other database commands).
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../../src/platform/db/database.ts';
import { cli, killStarted, STARTUP_MS, storage, type Env } from '../../helpers/processes.ts';

const timeout = STARTUP_MS;
/** db:reconcile's answer when every kept table matches its rows, in the order it checks them. */
const ALL_EXACT = [
  'user_counts',
  'user_day_counts',
  'device_session_expiry_days',
  'user_grace_periods',
  'strategy_status_counts',
  'exchange_trade_days',
  'exchange_trade_counts',
  'payments_revenue',
  'webhook_delivery_counts',
  'webhook_delivery_hours',
  'market_intel_counts',
  'command_center_task_counts',
  'command_center_task_day_counts',
  'command_center_task_assignee_day_counts',
]
  .map((table) => `${table}: exact\n`)
  .join('');

describe('npm run cli -- db:reconcile', () => {
  after(killStarted);

  it('db:reconcile finds the kept figures exact, names a difference a write behind the ' +
    'triggers made, and rebuilds them', {
    timeout: timeout * 2,
  }, async () => {
    const env: Env = await storage();
    assert.equal(
      (await cli(env, 'users:create', '--email', 'counted@example.com', '--password', 'counted-password-1')).code,
      0,
    );
    const exact = await cli(env, 'db:reconcile', '--check');
    assert.equal(exact.code, 0, exact.stderr);
    assert.equal(exact.stdout, ALL_EXACT);

    // A write the triggers do not see: the counts themselves changed, as a restore without triggers would leave them.
    const database = await openDatabase(
      env.DATABASE_URL ? { url: env.DATABASE_URL, poolSize: 1 } : { dataDir: path.join(env.DATA_DIR!, 'pglite') },
    );
    try {
      await database.db.execute(sql`UPDATE user_counts SET n = n + 5`);
      await database.db.execute(sql`INSERT INTO payments_revenue (currency, amount, payments) VALUES ('EUR', 12.5, 1)`);
    } finally {
      await database.close();
    }
    const found = await cli(env, 'db:reconcile', '--check');
    assert.equal(found.code, 1);
    assert.equal(
      found.stdout,
      ALL_EXACT.replace(
        'user_counts: exact',
        'user_counts: 0 row(s) missing, 0 extra, 1 differing; not mended (--check)',
      ).replace(
        'payments_revenue: exact',
        'payments_revenue: 0 row(s) missing, 1 extra, 0 differing; not mended (--check)',
      ),
    );
    const mended = await cli(env, 'db:reconcile');
    assert.equal(mended.code, 0, mended.stderr);
    assert.match(mended.stdout, /^user_counts: 0 row\(s\) missing, 0 extra, 1 differing; rebuilt\n/);
    const after = await cli(env, 'db:reconcile', '--check');
    assert.equal(after.code, 0);
    assert.equal(after.stdout, ALL_EXACT);
  });
});
