// The dataset of `npm run bench:scale` (issue 21), as SQL run by the server: one INSERT … SELECT
// generate_series per table, into a database the app has already migrated (its own migrations, its
// indexes present). Only existing columns, by name, as a bulk import would write them; columns added
// later take their defaults. Derived-figure tables are not written: a reconcile step (if the app has one)
// builds them from these rows.
//
// Identifiers are derived from row numbers (md5('u' || n)::uuid is user n), so tables refer to each
// other without a lookup. User 1 is the admin, user 2 the heavy trader (500,000 trades at scale 1);
// both have real password hashes, every other user an unusable one.
import type pg from 'pg';

/** Bumped when the dataset's shape changes: a database seeded by another version is seeded again. */
export const SEED_VERSION = 2;

export const ADMIN_EMAIL = 'scale-admin@bench.example';
export const HEAVY_EMAIL = 'scale-heavy@bench.example';

/** Row counts at factor 1 (the issue's "platform's worth"). */
export const BASE = {
  users: 200_000,
  heavyTrades: 500_000,
  otherTrades: 2_500_000,
  /** Users with balances; each has 5 snapshots of 4 currencies (20 rows). */
  balanceUsers: 100_000,
  audit: 2_000_000,
  webhooks: 1_000_000,
  intel: 500_000,
  agentActivity: 500_000,
  trackerIssues: 200_000,
  tasks: 100_000,
  deviceSessions: 200_000,
  passwordResets: 20_000,
  payments: 100_000,
} as const;

export type Counts = Record<keyof typeof BASE, number>;

export function countsAt(factor: number): Counts {
  return Object.fromEntries(Object.entries(BASE).map(([k, v]) => [k, Math.max(10, Math.round(v * factor))])) as Counts;
}

const uid = (n: string) => `md5('u' || (${n}))::uuid`;

/** [label, SQL] per step, in order; $1.. parameters are bound by seed(). */
function statements(
  c: Counts,
  team: { id: string; key: string; counter: number },
  states: string[],
): [string, string, unknown[]][] {
  const U = c.users;
  const others = `(3 + (i % ${U - 2}))`;
  // Spread over a span ending now: row i of n is (n - i) / n of the span ago.
  const ago = (n: number, span: string) => `now() - ((${n} - i)::float8 / ${n}) * interval '${span}'`;
  return [
    [
      'users',
      `INSERT INTO users (id, email, password_hash, first_name, last_name, role, subscription_tier, status,
        email_verified, last_login, grace_period_ends_at, deleted_at, created_at, updated_at)
       SELECT ${uid('n')},
              CASE n WHEN 1 THEN $1 WHEN 2 THEN $2 ELSE 'user' || n || '@bench.example' END,
              CASE WHEN n <= 2 THEN $3 ELSE 'unusable' END,
              'First' || n, 'Last' || n,
              CASE WHEN n = 1 OR n % 20000 = 0 THEN 'admin' ELSE 'user' END,
              CASE WHEN n % 20 IN (3, 13) THEN (ARRAY['basic', 'pro', 'enterprise'])[1 + n % 3]
                ELSE (ARRAY['free', 'free', 'free', 'basic', 'pro', 'enterprise'])[1 + n % 6] END,
              CASE WHEN n <= 2 THEN 'active' WHEN n % 50 = 0 THEN 'suspended' WHEN n % 97 = 0 THEN 'deleted'
                ELSE 'active' END,
              n % 3 <> 0,
              now() - (n % 1000) * interval '1 hour',
              -- 10% in a grace period, half of those expired (cleanup-grace-periods has work).
              CASE WHEN n <= 2 THEN NULL WHEN n % 20 = 3 THEN now() - interval '1 day' WHEN n % 20 = 13
                THEN now() + interval '5 days' END,
              CASE WHEN n > 2 AND n % 50 <> 0 AND n % 97 = 0 THEN now() - interval '10 days' END,
              now() - (${U} - n) * interval '2 minutes', now() - (${U} - n) * interval '1 minute'
       FROM generate_series(1, ${U}) AS n`,
      [ADMIN_EMAIL, HEAVY_EMAIL],
    ],
    [
      'exchange_trades (heavy user)',
      `INSERT INTO exchange_trades (user_id, exchange, exchange_trade_id, symbol, side, price, amount, total, fee,
        fee_currency, trade_timestamp, created_at)
       SELECT ${uid('2')}, 'binance', 'h' || i, s.symbol, CASE WHEN i % 2 = 0 THEN 'buy' ELSE 'sell' END,
              s.price, 0.001, s.price * 0.001, s.price * 0.000001, 'USDT',
              ${ago(c.heavyTrades, '2 years')}, ${ago(c.heavyTrades, '2 years')} + interval '1 second'
       FROM generate_series(1, ${c.heavyTrades}) AS i
       CROSS JOIN LATERAL (SELECT (ARRAY['BTC/USDT', 'ETH/USDT', 'SOL/USDT', 'XRP/USDT'])[1 + i % 4] AS symbol,
                                  (ARRAY[60000, 3000, 150, 0.5])[1 + i % 4]::numeric + (i % 97) AS price) s`,
      [],
    ],
    [
      'exchange_trades (other users)',
      `INSERT INTO exchange_trades (user_id, exchange, exchange_trade_id, symbol, side, price, amount, total, fee,
        fee_currency, trade_timestamp, created_at)
       SELECT ${uid(others)}, (ARRAY['binance', 'kraken', 'coinbase'])[1 + (i / 7) % 3], 'o' || i, s.symbol,
              CASE WHEN i % 2 = 0 THEN 'buy' ELSE 'sell' END,
              s.price, 0.01, s.price * 0.01, s.price * 0.00001, 'USDT',
              ${ago(c.otherTrades, '2 years')}, ${ago(c.otherTrades, '2 years')} + interval '1 second'
       FROM generate_series(1, ${c.otherTrades}) AS i
       CROSS JOIN LATERAL (SELECT (ARRAY['BTC/USDT', 'ETH/USDT', 'SOL/USDT', 'XRP/USDT'])[1 + i % 4] AS symbol,
                                  (ARRAY[60000, 3000, 150, 0.5])[1 + i % 4]::numeric + (i % 89) AS price) s`,
      [],
    ],
    [
      'exchange_balance_syncs',
      `INSERT INTO exchange_balance_syncs (id, user_id, exchange, currencies_synced, synced_at)
       SELECT md5('s' || n || '-' || s)::uuid, ${uid('n')}, 'binance', 4,
         now() - s * interval '1 day' - n * interval '1 second'
       FROM generate_series(2, ${c.balanceUsers + 1}) AS n CROSS JOIN generate_series(0, 4) AS s`,
      [],
    ],
    [
      'exchange_balances',
      `INSERT INTO exchange_balances (sync_id, user_id, exchange, currency, free, locked, total, sync_timestamp)
       SELECT md5('s' || n || '-' || s)::uuid, ${uid('n')}, 'binance', cur.c, cur.t + s, 0, cur.t + s,
         now() - s * interval '1 day' - n * interval '1 second'
       FROM generate_series(2, ${c.balanceUsers + 1}) AS n CROSS JOIN generate_series(0, 4) AS s
       CROSS JOIN (VALUES ('BTC', 0.5), ('ETH', 4), ('SOL', 30), ('USDT', 1000)) AS cur(c, t)`,
      [],
    ],
    [
      'audit_log',
      `INSERT INTO audit_log (actor_id, actor_type, action, subject_user_id, target_type, target_id, details, ip,
        created_at)
       SELECT ${uid(others)}, 'user',
              (ARRAY['auth.login', 'auth.logout', 'auth.login_failed', 'exchange.balance.sync',
                'exchange.trades.sync', 'auth.register', 'auth.password_change', 'admin.user.update'])[1 + i % 8],
              ${uid(others)}, 'user', ${others}::text, '{}'::jsonb, '127.0.0.1', ${ago(c.audit, '1 year')}
       FROM generate_series(1, ${c.audit}) AS i`,
      [],
    ],
    [
      'webhook_deliveries',
      `INSERT INTO webhook_deliveries (provider, delivery_id, content_key, event, payload, verified, received_at,
        status, attempts, processed_at, error)
       SELECT p.provider, 'd' || i, CASE WHEN i % 4 = 0 THEN md5('c' || i) END,
              p.provider || '.' || (ARRAY['created', 'updated', 'deleted', 'completed', 'failed'])[1 + (i / 8) % 5],
              jsonb_build_object('id', i, 'type', 'bench'), true,
              ${ago(c.webhooks, '30 days')},
              st.status, CASE WHEN st.status = 'failed' THEN 3 ELSE 1 END,
              ${ago(c.webhooks, '30 days')} + interval '20 milliseconds',
              CASE WHEN st.status = 'failed' THEN 'handler error' END
       FROM generate_series(1, ${c.webhooks}) AS i
       CROSS JOIN LATERAL (SELECT (ARRAY['codehost', 'payments', 'edge', 'tracker', 'errormon', 'database',
         'authprovider', 'mailer'])[1 + i % 8] AS provider) p
       CROSS JOIN LATERAL (SELECT (ARRAY['processed', 'processed', 'processed', 'processed', 'processed', 'processed',
         'failed', 'unmatched', 'superseded', 'processed', 'processed'])[1 + (i / 8) % 11] AS status) st`,
      [],
    ],
    [
      'market_intel_events',
      `INSERT INTO market_intel_events (event_type, asset, symbol, direction, source, trust_tier, strength, evidence,
        raw_note, detected_at, expires_at, outcome_pct, scored_at, scoring_attempts, created_at)
       SELECT (ARRAY['whale_transfer', 'listing', 'funding_spike', 'news'])[1 + i % 4], a.asset, a.asset || '/USDT',
              (ARRAY['bullish', 'bearish', 'long', 'short'])[1 + (i / 4) % 4], 'source-' || (i % 20),
              (ARRAY['verified', 'standard', 'standard', 'quarantined'])[1 + (i / 3) % 4], (i % 100) / 100.0,
              '{}'::jsonb, 'bench', ${ago(c.intel, '90 days')}, ${ago(c.intel, '90 days')} + interval '3 days',
              CASE WHEN i % 5 = 0 THEN NULL ELSE ((i % 200) - 100) / 10.0 END,
              CASE WHEN i % 5 = 0 THEN NULL ELSE ${ago(c.intel, '90 days')} + interval '1 day' END,
              CASE WHEN i % 5 = 0 THEN 0 ELSE 1 END, ${ago(c.intel, '90 days')}
       FROM generate_series(1, ${c.intel}) AS i
       CROSS JOIN LATERAL (SELECT (ARRAY['BTC', 'ETH', 'SOL', 'XRP', 'DOGE'])[1 + i % 5] AS asset) a`,
      [],
    ],
    [
      'agent_activity_events',
      `INSERT INTO agent_activity_events (agent_id, agent_name, kind, rationale, action, created_at)
       SELECT 'agent-' || (i % 25), 'Agent ' || (i % 25), (ARRAY['trade_proposal', 'task_update', 'analysis',
         'alert'])[1 + i % 4],
              'bench', '{}'::jsonb, ${ago(c.agentActivity, '90 days')}
       FROM generate_series(1, ${c.agentActivity}) AS i`,
      [],
    ],
    [
      'tracker_issues',
      `INSERT INTO tracker_issues (team_id, number, identifier, title, description, state_id, priority, assignee_id,
        created_at, updated_at)
       SELECT $1::uuid, $2::int + i, $3 || '-' || ($2::int + i), 'Issue ' || i, 'bench',
         ($4::uuid[])[1 + i % ${states.length}], i % 5,
              CASE WHEN i % 3 = 0 THEN ${uid(others)} END, ${ago(c.trackerIssues, '1 ' + 'year')}, ${ago(
                c.trackerIssues,
                '1 ' + 'year',
              )} + (i % 7) * interval '1 hour'
       FROM generate_series(1, ${c.trackerIssues}) AS i`,
      [team.id, team.counter, team.key, states],
    ],
    [
      'tracker_teams (counter)',
      `UPDATE tracker_teams SET issue_counter = issue_counter + ${c.trackerIssues} WHERE id = $1`,
      [team.id],
    ],
    [
      'command_center_tasks',
      `INSERT INTO command_center_tasks (title, description, status, priority, assignee, repo, source_type,
        created_at, updated_at, completed_at)
       SELECT 'Task ' || i, 'bench', st.status, (ARRAY['critical', 'high', 'medium', 'low'])[1 + i % 4],
         'agent-' || (i % 10),
              'trading-platform/backend', (ARRAY['human', 'agent', 'system', 'webhook'])[1 + (i / 4) % 4],
              ${ago(c.tasks, '1 year')}, ${ago(c.tasks, '1 year')} + interval '1 hour',
              CASE WHEN st.status = 'done' THEN ${ago(c.tasks, '1 year')} + interval '2 hours' END
       FROM generate_series(1, ${c.tasks}) AS i
       CROSS JOIN LATERAL (SELECT (ARRAY['todo', 'in_progress', 'blocked', 'in_review', 'done', 'done',
         'cancelled'])[1 + i % 7] AS status) st`,
      [],
    ],
    [
      'device_sessions',
      // 20% expired, 10% revoked, 10% idle for 60 days, the rest live (cleanup-device-sessions has work).
      `INSERT INTO device_sessions (id, user_id, user_agent, ip, created_at, last_seen_at, expires_at, revoked_at,
        revoke_reason)
       SELECT md5('ds' || i)::uuid, ${uid(others)}, 'bench', '127.0.0.1', now() - interval '90 days',
              CASE WHEN i % 10 = 3 THEN now() - interval '60 days' ELSE now() - (i % 48) * interval '1 hour' END,
              CASE WHEN i % 10 IN (0, 1) THEN now() - interval '1 day' ELSE now() + interval '20 days' END,
              CASE WHEN i % 10 = 2 THEN now() - interval '2 days' END,
              CASE WHEN i % 10 = 2 THEN 'logout' END
       FROM generate_series(1, ${c.deviceSessions}) AS i`,
      [],
    ],
    [
      'refresh_tokens',
      // One per session; a quarter of the live sessions' tokens rotated or expired (cleanup-expired-tokens has work).
      `INSERT INTO refresh_tokens (session_id, token_hash, created_at, expires_at, rotated_at, revoked_at)
       SELECT md5('ds' || i)::uuid, md5('rt' || i), now() - interval '30 days',
              CASE WHEN i % 4 = 0 THEN now() - interval '1 day' ELSE now() + interval '20 days' END,
              CASE WHEN i % 8 = 1 THEN now() - interval '1 day' END,
              CASE WHEN i % 16 = 5 THEN now() - interval '1 day' END
       FROM generate_series(1, ${c.deviceSessions}) AS i`,
      [],
    ],
    [
      'password_reset_tokens',
      `INSERT INTO password_reset_tokens (user_id, token_hash, created_at, expires_at, used_at)
       SELECT ${uid(others)}, md5('pr' || i), now() - interval '2 days',
              CASE WHEN i % 2 = 0 THEN now() - interval '1 day' ELSE now() + interval '1 hour' END,
              CASE WHEN i % 5 = 1 THEN now() - interval '1 day' END
       FROM generate_series(1, ${c.passwordResets}) AS i`,
      [],
    ],
    [
      'payments_ledger',
      `INSERT INTO payments_ledger (external_id, user_id, customer_email, amount, currency, kind, occurred_at)
       SELECT 'pay' || i, ${uid(others)}, 'user' || ${others} || '@bench.example', 10 + (i % 90), 'USD', 'payment',
         ${ago(c.payments, '1 ' + 'year')}
       FROM generate_series(1, ${c.payments}) AS i`,
      [],
    ],
  ];
}

/** The rows the maintenance jobs delete or change. */
const JOB_STEPS = ['device_sessions', 'refresh_tokens', 'password_reset_tokens'];

/**
 * Puts the rows the maintenance jobs work on back as seeded: sessions, refresh and reset tokens (also
 * those of the bench's own logins), the grace periods and tiers of users, the audit rows the
 * grace-period job writes (the seed writes none of those actions), and the intel calls the autopilot
 * scored. So a run on a reused database finds the same work as the first. Ends with a checkpoint where
 * the bench's role may make one; answers whether it did.
 */
export async function restoreJobRows(client: pg.Client, factor: number): Promise<{ checkpointed: boolean }> {
  const counts = countsAt(factor);
  await client.query('BEGIN');
  try {
    await client.query('DELETE FROM refresh_tokens');
    await client.query('DELETE FROM device_sessions');
    await client.query('DELETE FROM password_reset_tokens');
    await client.query(
      `DELETE FROM audit_log WHERE action IN ('billing.grace_period.expired', 'billing.grace_period.clear')`,
    );
    // strategy-autopilot/evaluate scores matured unscored calls (a batch per run); seeded rows were never attempted.
    await client.query(
      'UPDATE market_intel_events SET outcome_pct = NULL, scored_at = NULL, scoring_attempts = 0, ' +
        'scoring_attempted_at = NULL, scoring_error = NULL WHERE scoring_attempted_at IS NOT NULL',
    );
    for (const [step, sql, params] of statements(counts, { id: '', key: '', counter: 0 }, [''])) {
      if (JOB_STEPS.includes(step)) await client.query(sql, params);
    }
    // The same expressions as the users step, on n read back from the seeded e-mail addresses.
    await client.query(
      `UPDATE users u SET grace_period_ends_at = CASE WHEN s.n % 20 = 3 THEN now() - interval '1 day'
        WHEN s.n % 20 = 13 THEN now() + interval '5 days' END,
                          subscription_tier = CASE WHEN s.n % 20 IN (3, 13)
                            THEN (ARRAY['basic', 'pro', 'enterprise'])[1 + s.n % 3]
                              ELSE (ARRAY['free', 'free', 'free', 'basic', 'pro', 'enterprise'])[1 + s.n % 6] END
       FROM (SELECT id, substring(email FROM '^user([0-9]+)@bench[.]example$')::int AS n FROM users
         WHERE email LIKE 'user%@bench.example') s
       WHERE u.id = s.id AND (s.n % 20 IN (3, 13) OR u.grace_period_ends_at IS NOT NULL)`,
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
  // The rows put back leave the old ones dead in the tables and their indexes; vacuumed, as autovacuum
  // keeps a running database, so a job is not charged for the bench's own garbage.
  await client.query(
    'VACUUM (ANALYZE) users, user_grace_periods, device_sessions, refresh_tokens, password_reset_tokens, ' +
      'market_intel_events, audit_log',
  );
  // Then a checkpoint, so every run starts from the state a running platform is in when a job runs: the
  // pages a job changes were last written before the last checkpoint, so their first change writes a
  // full-page image to the WAL. Without it, whether one fell between the restore and the job was chance
  // (the restore writes about 500 MB of WAL, about the distance at which PostgreSQL starts one, and other
  // databases on the server force their own): the grace-period job then wrote 9 MB or 85 MB of WAL.
  // CHECKPOINT needs a superuser or pg_checkpoint; without either the run says so and goes on.
  try {
    await client.query('CHECKPOINT');
    return { checkpointed: true };
  } catch {
    return { checkpointed: false };
  }
}

export interface SeedTiming {
  step: string;
  rows: number;
  ms: number;
}

/**
 * Seeds a migrated, empty database (the app has started on it once, so its startup rows, e.g. the
 * local tracker team, exist). `passwordHash` is the app's hash of the bench password, for users 1 and 2.
 */
export async function seed(
  client: pg.Client,
  factor: number,
  passwordHash: string,
  log: (line: string) => void,
): Promise<SeedTiming[]> {
  const counts = countsAt(factor);
  const teams = await client.query<{ id: string; key: string; issue_counter: number }>(
    'SELECT id, key, issue_counter FROM tracker_teams ORDER BY created_at LIMIT 1',
  );
  if (teams.rows.length === 0) throw new Error('no tracker team: the app did not seed its local team at startup');
  const team = { id: teams.rows[0]!.id, key: teams.rows[0]!.key, counter: teams.rows[0]!.issue_counter };
  const states = (
    await client.query<{ id: string }>('SELECT id FROM tracker_workflow_states WHERE team_id = $1 ORDER BY position', [
      team.id,
    ])
  ).rows.map((r) => r.id);
  if (states.length === 0) throw new Error('the local tracker team has no workflow states');
  const timings: SeedTiming[] = [];
  for (const [step, sql, params] of statements(counts, team, states)) {
    const started = performance.now();
    const values = step === 'users' ? [...params, passwordHash] : params;
    const result = await client.query(sql, values);
    const ms = performance.now() - started;
    timings.push({ step, rows: result.rowCount ?? 0, ms });
    log(`  ${step}: ${(result.rowCount ?? 0).toLocaleString('en')} rows in ${(ms / 1000).toFixed(1)} s`);
  }
  // What autovacuum does to tables this size soon after such inserts; some servers run without it
  // (the one these figures were measured on among them), and a never-vacuumed table (no visibility
  // map, no hint bits) is not what a running platform reads.
  const started = performance.now();
  await client.query('VACUUM (ANALYZE)');
  timings.push({ step: 'VACUUM (ANALYZE)', rows: 0, ms: performance.now() - started });
  log(`  VACUUM (ANALYZE) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return timings;
}
