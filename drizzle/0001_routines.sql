-- from src/platform/db/platform.routines.sql
-- Counts kept by the database per key, for any module's table (docs/decisions/124). A statement
-- trigger passes: the counts table, its key columns, the key expressions over a source row `r`, and
-- optionally a condition on `r` that a row must meet to be counted. The statement's rows are added
-- (+1) and taken away (-1) as signed deltas grouped by key; an update moves rows between keys, and a
-- key whose delta nets to zero writes nothing. Triggers name their transition tables new_rows and
-- old_rows.
CREATE FUNCTION kept_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  target text := TG_ARGV[0];
  columns text := TG_ARGV[1];
  keys text := TG_ARGV[2];
  counted text := coalesce(nullif(TG_ARGV[3], ''), 'true');
  changes text := CASE TG_OP
    WHEN 'INSERT' THEN format('SELECT 1, %1$s FROM new_rows AS r WHERE %2$s', keys, counted)
    WHEN 'DELETE' THEN format('SELECT -1, %1$s FROM old_rows AS r WHERE %2$s', keys, counted)
    ELSE format('SELECT -1, %1$s FROM old_rows AS r WHERE %2$s UNION ALL SELECT 1, %1$s FROM new_rows AS r WHERE %2$s', keys, counted)
  END;
BEGIN
  EXECUTE format(
    -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
    'INSERT INTO %1$I AS k (%2$s, n) SELECT %2$s, sum(sign) FROM (%3$s) AS changes(sign, %2$s) GROUP BY %2$s HAVING sum(sign) <> 0 '
    'ORDER BY %2$s '
    'ON CONFLICT (%2$s) DO UPDATE SET n = k.n + excluded.n', target, columns, changes);
  IF TG_OP <> 'INSERT' THEN
    EXECUTE format('DELETE FROM %I WHERE n = 0', target);
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE FUNCTION kept_counts_clear() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  EXECUTE format('DELETE FROM %I', TG_ARGV[0]);
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
-- A time-ordered id (UUID version 7, RFC 9562: milliseconds since the epoch, then random bits), the
-- kind the app gives audit entries, for entries the database writes itself (set-based jobs,
-- src/platform/audit.ts `auditFrom`). A version 4 UUID with its first 48 bits replaced by the time
-- and its version nibble raised from 4 to 7 (bits 52 and 53 set).
CREATE FUNCTION uuid_v7(at timestamptz DEFAULT clock_timestamp()) RETURNS uuid LANGUAGE sql VOLATILE AS $fn$
  SELECT encode(
    set_bit(set_bit(
      overlay(uuid_send(gen_random_uuid())
        PLACING substring(int8send(floor(extract(epoch FROM at) * 1000)::bigint) FROM 3) FROM 1 FOR 6),
      52, 1), 53, 1),
    'hex')::uuid
$fn$;

--> statement-breakpoint
-- from src/modules/command-center/command-center.routines.sql
-- Counts the database keeps for the command center (docs/decisions/124), by the platform's
-- kept_counts_follow: intel events per trust tier, source, direction and outcome; tasks per status,
-- priority, assignee ('' for none) and source type.
CREATE TRIGGER market_intel_counts_on_insert AFTER INSERT ON market_intel_events REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_follow('market_intel_counts', 'trust_tier, source, direction, outcome',
    'r.trust_tier, r.source, r.direction, CASE WHEN r.outcome_pct IS NULL THEN ''unscored'' WHEN r.outcome_pct > 0 THEN ''gain'' WHEN r.outcome_pct < 0 THEN ''loss'' ELSE ''flat'' END');
--> statement-breakpoint
CREATE TRIGGER market_intel_counts_on_update AFTER UPDATE ON market_intel_events REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_follow('market_intel_counts', 'trust_tier, source, direction, outcome',
    'r.trust_tier, r.source, r.direction, CASE WHEN r.outcome_pct IS NULL THEN ''unscored'' WHEN r.outcome_pct > 0 THEN ''gain'' WHEN r.outcome_pct < 0 THEN ''loss'' ELSE ''flat'' END');
--> statement-breakpoint
CREATE TRIGGER market_intel_counts_on_delete AFTER DELETE ON market_intel_events REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_follow('market_intel_counts', 'trust_tier, source, direction, outcome',
    'r.trust_tier, r.source, r.direction, CASE WHEN r.outcome_pct IS NULL THEN ''unscored'' WHEN r.outcome_pct > 0 THEN ''gain'' WHEN r.outcome_pct < 0 THEN ''loss'' ELSE ''flat'' END');
--> statement-breakpoint
CREATE TRIGGER market_intel_counts_on_truncate AFTER TRUNCATE ON market_intel_events
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_clear('market_intel_counts');
--> statement-breakpoint
CREATE FUNCTION market_intel_counts_recomputed() RETURNS SETOF market_intel_counts LANGUAGE sql STABLE AS $fn$
  SELECT trust_tier, source, direction,
         CASE WHEN outcome_pct IS NULL THEN 'unscored' WHEN outcome_pct > 0 THEN 'gain' WHEN outcome_pct < 0 THEN 'loss' ELSE 'flat' END,
         count(*)::int
  FROM market_intel_events GROUP BY 1, 2, 3, 4
$fn$;
--> statement-breakpoint
INSERT INTO market_intel_counts SELECT * FROM market_intel_counts_recomputed();
--> statement-breakpoint
CREATE TRIGGER command_center_task_counts_on_insert AFTER INSERT ON command_center_tasks REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_follow('command_center_task_counts', 'status, priority, assignee, source_type',
    'r.status, r.priority, coalesce(r.assignee, ''''), r.source_type');
--> statement-breakpoint
CREATE TRIGGER command_center_task_counts_on_update AFTER UPDATE ON command_center_tasks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_follow('command_center_task_counts', 'status, priority, assignee, source_type',
    'r.status, r.priority, coalesce(r.assignee, ''''), r.source_type');
--> statement-breakpoint
CREATE TRIGGER command_center_task_counts_on_delete AFTER DELETE ON command_center_tasks REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_follow('command_center_task_counts', 'status, priority, assignee, source_type',
    'r.status, r.priority, coalesce(r.assignee, ''''), r.source_type');
--> statement-breakpoint
CREATE TRIGGER command_center_task_counts_on_truncate AFTER TRUNCATE ON command_center_tasks
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_clear('command_center_task_counts');
--> statement-breakpoint
CREATE FUNCTION command_center_task_counts_recomputed() RETURNS SETOF command_center_task_counts LANGUAGE sql STABLE AS $fn$
  SELECT status, priority, coalesce(assignee, ''), source_type, count(*)::int FROM command_center_tasks GROUP BY 1, 2, 3, 4
$fn$;
--> statement-breakpoint
INSERT INTO command_center_task_counts SELECT * FROM command_center_task_counts_recomputed();
--> statement-breakpoint
-- command_center_task_day_counts: tasks per status and UTC day of creation, where a deep page of the
-- board starts (docs/decisions/195).
CREATE TRIGGER command_center_task_day_counts_on_insert AFTER INSERT ON command_center_tasks REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_follow('command_center_task_day_counts', 'status, created_day',
    'r.status, (r.created_at AT TIME ZONE ''UTC'')::date');
--> statement-breakpoint
CREATE TRIGGER command_center_task_day_counts_on_update AFTER UPDATE ON command_center_tasks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_follow('command_center_task_day_counts', 'status, created_day',
    'r.status, (r.created_at AT TIME ZONE ''UTC'')::date');
--> statement-breakpoint
CREATE TRIGGER command_center_task_day_counts_on_delete AFTER DELETE ON command_center_tasks REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_follow('command_center_task_day_counts', 'status, created_day',
    'r.status, (r.created_at AT TIME ZONE ''UTC'')::date');
--> statement-breakpoint
CREATE TRIGGER command_center_task_day_counts_on_truncate AFTER TRUNCATE ON command_center_tasks
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_clear('command_center_task_day_counts');
--> statement-breakpoint
CREATE FUNCTION command_center_task_day_counts_recomputed() RETURNS SETOF command_center_task_day_counts
  LANGUAGE sql STABLE AS $fn$
  SELECT status, (created_at AT TIME ZONE 'UTC')::date, count(*)::int FROM command_center_tasks GROUP BY 1, 2
$fn$;
--> statement-breakpoint
INSERT INTO command_center_task_day_counts SELECT * FROM command_center_task_day_counts_recomputed();
--> statement-breakpoint
-- When an intel event's outcome is due: its expiry, else a day after its detection (DEFAULT_HORIZON_MS
-- of intel-scoring.domain.ts). Immutable in fact, as a fixed number of seconds added to an instant
-- does not depend on the time zone (PostgreSQL marks timestamptz + interval only stable, for months
-- and days), so that the scoring queue can be indexed by it.
CREATE FUNCTION intel_horizon(expires_at timestamptz, detected_at timestamptz) RETURNS timestamptz
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT COALESCE(expires_at, detected_at + interval '86400 seconds')
$fn$;
--> statement-breakpoint
-- The scoring job's queue in its order (intel.repository.ts `maturedUnscored`): events still waiting
-- for an outcome and not given up (SCORING_GIVE_UP_AFTER is 3), never tried first, then by horizon.
-- The job reads the first matured ones and stops, however many wait.
CREATE INDEX market_intel_events_scoring_queue_idx ON market_intel_events
  (scoring_attempted_at NULLS FIRST, intel_horizon(expires_at, detected_at), id)
  WHERE outcome_pct IS NULL AND scoring_attempts < 3;
--> statement-breakpoint
-- An agent activity event as the feed's JSON text (the wire's fields, in its order; the time as
-- Date#toISOString writes it), kept in the row as it is written (decision 188).
CREATE FUNCTION agent_activity_wire(
  id uuid, agent_id text, agent_name text, kind text, rationale text, action jsonb, created_at timestamptz
) RETURNS text LANGUAGE sql STABLE AS $fn$
  SELECT row_to_json(w)::text FROM (
    SELECT $1 AS id, $2 AS agent_id, $3 AS agent_name, $4 AS kind, $5 AS rationale, $6 AS action,
      to_char($7 AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at
  ) AS w
$fn$;
--> statement-breakpoint
CREATE FUNCTION agent_activity_wire_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  NEW.wire := agent_activity_wire(NEW.id, NEW.agent_id, NEW.agent_name, NEW.kind, NEW.rationale, NEW.action, NEW.created_at);
  RETURN NEW;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER agent_activity_wire_on_write BEFORE INSERT OR UPDATE ON agent_activity_events
  FOR EACH ROW EXECUTE FUNCTION agent_activity_wire_follow();
--> statement-breakpoint
-- An intel event as the feed's JSON text (the wire's fields, in its order, as intelEventWire writes
-- them: times as Date#toISOString writes them, the scoring error only while the event has no
-- outcome), kept in the row as it is written and as it changes (decision 190).
CREATE FUNCTION market_intel_wire(
  id uuid, event_type text, asset text, symbol text, direction text, source text, trust_tier text,
  raw_note text, strength double precision, evidence jsonb, detected_at timestamptz, expires_at timestamptz,
  created_at timestamptz, outcome_pct double precision, scoring_error text, scoring_attempts integer
) RETURNS text LANGUAGE sql STABLE AS $fn$
  SELECT row_to_json(w)::text FROM (
    SELECT $1 AS id, $2 AS event_type, $3 AS asset, $4 AS symbol, $5 AS direction, $6 AS source,
      $7 AS trust_tier, $8 AS raw_note, $9 AS strength, $10 AS evidence,
      to_char($11 AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS detected_at,
      to_char($12 AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS expires_at,
      to_char($13 AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
      $14 AS outcome_pct, CASE WHEN $14 IS NULL THEN $15 END AS scoring_error, $16 AS scoring_attempts
  ) AS w
$fn$;
--> statement-breakpoint
CREATE FUNCTION market_intel_wire_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  NEW.wire := market_intel_wire(NEW.id, NEW.event_type, NEW.asset, NEW.symbol, NEW.direction, NEW.source,
    NEW.trust_tier, NEW.raw_note, NEW.strength, NEW.evidence, NEW.detected_at, NEW.expires_at, NEW.created_at,
    NEW.outcome_pct, NEW.scoring_error, NEW.scoring_attempts);
  RETURN NEW;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER market_intel_wire_on_write BEFORE INSERT OR UPDATE ON market_intel_events
  FOR EACH ROW EXECUTE FUNCTION market_intel_wire_follow();

--> statement-breakpoint
-- from src/modules/exchange/exchange.routines.sql
-- exchange_trade_days and exchange_trade_counts (per user) follow exchange_trades, whatever writes
-- them: the API's sync, a bulk import, a restore's rows (docs/decisions/124). Statement triggers read
-- the statement's rows as transition tables, so a bulk INSERT of millions of trades costs one grouped
-- upsert, not a call per row. Counts and sums move by deltas, which commute, so concurrent writers add
-- up exactly; a day that lost rows (a delete, a trade moved by an update) has its first and last trade
-- read again from its trades, and goes when it has none left, as does a user's count.
CREATE FUNCTION exchange_trade_days_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  -- The statement's rows, signed: +1 arrives in a day, -1 leaves it. An update counts only when it
  -- changes what the days sum (a credential set to null on delete, for one, does not).
  changes text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT 1 AS sign, n.* FROM new_trades n'
    WHEN 'DELETE' THEN 'SELECT -1 AS sign, o.* FROM old_trades o'
    ELSE 'SELECT c.* FROM old_trades o JOIN new_trades n USING (id)
            CROSS JOIN LATERAL (SELECT -1 AS sign, o.* UNION ALL SELECT 1, n.*) AS c
          WHERE (o.user_id, o.exchange, o.symbol, o.side, o.total, o.fee, o.trade_timestamp, o.sync_status)
            IS DISTINCT FROM (n.user_id, n.exchange, n.symbol, n.side, n.total, n.fee, n.trade_timestamp, n.sync_status)'
  END;
BEGIN
  EXECUTE format($sql$
    INSERT INTO exchange_trade_days AS d
      (user_id, exchange, symbol, day, total_trades, buy_count, sell_count, synced_count, failed_count,
       total_volume, total_fees, first_trade, last_trade)
    SELECT user_id, exchange, symbol, (trade_timestamp AT TIME ZONE 'UTC')::date,
           sum(sign), coalesce(sum(sign) FILTER (WHERE side = 'buy'), 0), coalesce(sum(sign) FILTER (WHERE side = 'sell'), 0),
           coalesce(sum(sign) FILTER (WHERE sync_status = 'synced'), 0), coalesce(sum(sign) FILTER (WHERE sync_status = 'failed'), 0),
           coalesce(sum(sign * total), 0), coalesce(sum(sign * fee), 0),
           min(trade_timestamp) FILTER (WHERE sign > 0), max(trade_timestamp) FILTER (WHERE sign > 0)
    FROM (%s) AS changes
    GROUP BY 1, 2, 3, 4
    -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (user_id, exchange, symbol, day) DO UPDATE SET
      total_trades = d.total_trades + excluded.total_trades,
      buy_count = d.buy_count + excluded.buy_count,
      sell_count = d.sell_count + excluded.sell_count,
      synced_count = d.synced_count + excluded.synced_count,
      failed_count = d.failed_count + excluded.failed_count,
      total_volume = d.total_volume + excluded.total_volume,
      total_fees = d.total_fees + excluded.total_fees,
      first_trade = least(d.first_trade, excluded.first_trade),
      last_trade = greatest(d.last_trade, excluded.last_trade)
  $sql$, changes);
  EXECUTE format($sql$
    INSERT INTO exchange_trade_counts AS c (user_id, total_trades)
    SELECT user_id, sum(sign) FROM (%s) AS changes GROUP BY 1 ORDER BY 1
    ON CONFLICT (user_id) DO UPDATE SET total_trades = c.total_trades + excluded.total_trades
  $sql$, changes);
  IF TG_OP <> 'INSERT' THEN
    EXECUTE format($sql$
      DELETE FROM exchange_trade_counts AS c
      WHERE c.user_id IN (SELECT user_id FROM (%s) AS changes WHERE sign < 0) AND c.total_trades <= 0
    $sql$, changes);
    EXECUTE format($sql$
      WITH left_days AS (
        SELECT DISTINCT user_id, exchange, symbol, (trade_timestamp AT TIME ZONE 'UTC')::date AS day
        FROM (%s) AS changes WHERE sign < 0
      ), emptied AS (
        DELETE FROM exchange_trade_days AS d USING left_days AS l
        WHERE (d.user_id, d.exchange, d.symbol, d.day) = (l.user_id, l.exchange, l.symbol, l.day) AND d.total_trades <= 0
        RETURNING d.user_id, d.exchange, d.symbol, d.day
      )
      UPDATE exchange_trade_days AS d SET first_trade = span.first_trade, last_trade = span.last_trade
      FROM left_days AS l CROSS JOIN LATERAL (
        SELECT min(t.trade_timestamp) AS first_trade, max(t.trade_timestamp) AS last_trade
        FROM exchange_trades AS t
        WHERE t.user_id = l.user_id AND t.symbol = l.symbol AND t.exchange = l.exchange
          AND t.trade_timestamp >= l.day::timestamp AT TIME ZONE 'UTC'
          AND t.trade_timestamp < (l.day + 1)::timestamp AT TIME ZONE 'UTC'
      ) AS span
      WHERE (d.user_id, d.exchange, d.symbol, d.day) = (l.user_id, l.exchange, l.symbol, l.day)
        AND (l.user_id, l.exchange, l.symbol, l.day) NOT IN (SELECT user_id, exchange, symbol, day FROM emptied)
    $sql$, changes);
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER exchange_trade_days_on_insert AFTER INSERT ON exchange_trades
  REFERENCING NEW TABLE AS new_trades FOR EACH STATEMENT EXECUTE FUNCTION exchange_trade_days_follow();
--> statement-breakpoint
CREATE TRIGGER exchange_trade_days_on_update AFTER UPDATE ON exchange_trades
  REFERENCING OLD TABLE AS old_trades NEW TABLE AS new_trades FOR EACH STATEMENT EXECUTE FUNCTION exchange_trade_days_follow();
--> statement-breakpoint
CREATE TRIGGER exchange_trade_days_on_delete AFTER DELETE ON exchange_trades
  REFERENCING OLD TABLE AS old_trades FOR EACH STATEMENT EXECUTE FUNCTION exchange_trade_days_follow();
--> statement-breakpoint
CREATE TRIGGER exchange_trade_days_on_truncate AFTER TRUNCATE ON exchange_trades
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_clear('exchange_trade_days');
--> statement-breakpoint
CREATE TRIGGER exchange_trade_counts_on_truncate AFTER TRUNCATE ON exchange_trades
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_clear('exchange_trade_counts');
--> statement-breakpoint
-- The days as the trades say they are: what db:reconcile compares exchange_trade_days with and
-- rebuilds it from, and what fills it once here for trades stored before it existed.
CREATE FUNCTION exchange_trade_days_recomputed() RETURNS SETOF exchange_trade_days LANGUAGE sql STABLE AS $fn$
  SELECT user_id, exchange, symbol, (trade_timestamp AT TIME ZONE 'UTC')::date,
         count(*)::int, (count(*) FILTER (WHERE side = 'buy'))::int, (count(*) FILTER (WHERE side = 'sell'))::int,
         (count(*) FILTER (WHERE sync_status = 'synced'))::int, (count(*) FILTER (WHERE sync_status = 'failed'))::int,
         coalesce(sum(total), 0), coalesce(sum(fee), 0), min(trade_timestamp), max(trade_timestamp)
  FROM exchange_trades
  GROUP BY 1, 2, 3, 4
$fn$;
--> statement-breakpoint
INSERT INTO exchange_trade_days SELECT * FROM exchange_trade_days_recomputed();
--> statement-breakpoint
-- Each user's trades as the trades say: what db:reconcile compares exchange_trade_counts with.
CREATE FUNCTION exchange_trade_counts_recomputed() RETURNS SETOF exchange_trade_counts LANGUAGE sql STABLE AS $fn$
  SELECT user_id, count(*)::int FROM exchange_trades GROUP BY 1
$fn$;
--> statement-breakpoint
INSERT INTO exchange_trade_counts SELECT * FROM exchange_trade_counts_recomputed();
--> statement-breakpoint
-- A venue's days of one user in day order with their counts, read from the index alone: a list's total
-- sums them, and a deep page walks them oldest first and stops at its day (trades.repository.ts,
-- decision 191). Written here because the schema's index builder has no INCLUDE.
CREATE INDEX exchange_trade_days_venue_day_idx ON exchange_trade_days (user_id, exchange, day) INCLUDE (total_trades);

--> statement-breakpoint
-- from src/modules/users/users.routines.sql
-- user_counts follows users, whatever writes them (docs/decisions/124), by the platform's
-- kept_counts_follow: accounts per status, role, tier and UTC day of creation. An update counts only
-- when it moves an account between those (a sign-in's last_login nets to nothing and writes nothing).
CREATE TRIGGER user_counts_on_insert AFTER INSERT ON users REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_follow('user_counts', 'status, role, subscription_tier, created_day', 'r.status, r.role, r.subscription_tier, (r.created_at AT TIME ZONE ''UTC'')::date');
--> statement-breakpoint
CREATE TRIGGER user_counts_on_update AFTER UPDATE ON users REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_follow('user_counts', 'status, role, subscription_tier, created_day', 'r.status, r.role, r.subscription_tier, (r.created_at AT TIME ZONE ''UTC'')::date');
--> statement-breakpoint
CREATE TRIGGER user_counts_on_delete AFTER DELETE ON users REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_follow('user_counts', 'status, role, subscription_tier, created_day', 'r.status, r.role, r.subscription_tier, (r.created_at AT TIME ZONE ''UTC'')::date');
--> statement-breakpoint
CREATE TRIGGER user_counts_on_truncate AFTER TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_clear('user_counts');
--> statement-breakpoint
-- The counts as the accounts say they are: what db:reconcile compares user_counts with and rebuilds
-- it from, and what fills it once here for accounts stored before it existed.
CREATE FUNCTION user_counts_recomputed() RETURNS SETOF user_counts LANGUAGE sql STABLE AS $fn$
  SELECT status, role, subscription_tier, (created_at AT TIME ZONE 'UTC')::date, count(*)::int
  FROM users
  GROUP BY 1, 2, 3, 4
$fn$;
--> statement-breakpoint
INSERT INTO user_counts SELECT * FROM user_counts_recomputed();
--> statement-breakpoint
-- user_day_counts: the same by status and UTC day of creation only (docs/decisions/193).
CREATE TRIGGER user_day_counts_on_insert AFTER INSERT ON users REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_follow('user_day_counts', 'status, created_day', 'r.status, (r.created_at AT TIME ZONE ''UTC'')::date');
--> statement-breakpoint
CREATE TRIGGER user_day_counts_on_update AFTER UPDATE ON users REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_follow('user_day_counts', 'status, created_day', 'r.status, (r.created_at AT TIME ZONE ''UTC'')::date');
--> statement-breakpoint
CREATE TRIGGER user_day_counts_on_delete AFTER DELETE ON users REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_follow('user_day_counts', 'status, created_day', 'r.status, (r.created_at AT TIME ZONE ''UTC'')::date');
--> statement-breakpoint
CREATE TRIGGER user_day_counts_on_truncate AFTER TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_clear('user_day_counts');
--> statement-breakpoint
CREATE FUNCTION user_day_counts_recomputed() RETURNS SETOF user_day_counts LANGUAGE sql STABLE AS $fn$
  SELECT status, (created_at AT TIME ZONE 'UTC')::date, count(*)::int FROM users GROUP BY 1, 2
$fn$;
--> statement-breakpoint
INSERT INTO user_day_counts SELECT * FROM user_day_counts_recomputed();
--> statement-breakpoint
-- device_session_expiry_days: sessions not revoked, per UTC day of expiry.
CREATE TRIGGER device_session_expiry_days_on_insert AFTER INSERT ON device_sessions REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_follow('device_session_expiry_days', 'day', '(r.expires_at AT TIME ZONE ''UTC'')::date', 'r.revoked_at IS NULL');
--> statement-breakpoint
CREATE TRIGGER device_session_expiry_days_on_update AFTER UPDATE ON device_sessions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_follow('device_session_expiry_days', 'day', '(r.expires_at AT TIME ZONE ''UTC'')::date', 'r.revoked_at IS NULL');
--> statement-breakpoint
CREATE TRIGGER device_session_expiry_days_on_delete AFTER DELETE ON device_sessions REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_follow('device_session_expiry_days', 'day', '(r.expires_at AT TIME ZONE ''UTC'')::date', 'r.revoked_at IS NULL');
--> statement-breakpoint
CREATE TRIGGER device_session_expiry_days_on_truncate AFTER TRUNCATE ON device_sessions
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_clear('device_session_expiry_days');
--> statement-breakpoint
CREATE FUNCTION device_session_expiry_days_recomputed() RETURNS SETOF device_session_expiry_days LANGUAGE sql STABLE AS $fn$
  SELECT (expires_at AT TIME ZONE 'UTC')::date, count(*)::int FROM device_sessions WHERE revoked_at IS NULL GROUP BY 1
$fn$;
--> statement-breakpoint
INSERT INTO device_session_expiry_days SELECT * FROM device_session_expiry_days_recomputed();

--> statement-breakpoint
-- A refresh token belongs to a device session (docs/decisions/129). A foreign key would delete the
-- tokens of each deleted session by a query per session; these triggers do what it did a statement at
-- a time: a deleted (or truncated) session takes its tokens with it, and a token is refused unless its
-- session exists, which stays locked (FOR KEY SHARE, as a foreign key's check locks it) until the
-- token's transaction ends, so no session is deleted under a token being written.
CREATE FUNCTION refresh_tokens_follow_sessions() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    -- Not TRUNCATE: the statement that fired this may be truncating refresh_tokens too.
    DELETE FROM refresh_tokens;
  ELSE
    DELETE FROM refresh_tokens WHERE session_id = ANY (ARRAY(SELECT id FROM gone_sessions));
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER refresh_tokens_follow_session_delete AFTER DELETE ON device_sessions REFERENCING OLD TABLE AS gone_sessions
  FOR EACH STATEMENT EXECUTE FUNCTION refresh_tokens_follow_sessions();
--> statement-breakpoint
CREATE TRIGGER refresh_tokens_follow_session_truncate AFTER TRUNCATE ON device_sessions
  FOR EACH STATEMENT EXECUTE FUNCTION refresh_tokens_follow_sessions();
--> statement-breakpoint
CREATE FUNCTION refresh_tokens_session_exists() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM 1 FROM device_sessions WHERE id = NEW.session_id FOR KEY SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'insert or update on table "refresh_tokens" violates foreign key constraint "refresh_tokens_session_id_fk"'
      USING ERRCODE = 'foreign_key_violation', TABLE = 'refresh_tokens', CONSTRAINT = 'refresh_tokens_session_id_fk',
            DETAIL = format('Key (session_id)=(%s) is not present in table "device_sessions".', NEW.session_id);
  END IF;
  RETURN NEW;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER refresh_tokens_session_exists BEFORE INSERT OR UPDATE OF session_id ON refresh_tokens
  FOR EACH ROW EXECUTE FUNCTION refresh_tokens_session_exists();

--> statement-breakpoint
-- user_grace_periods follows users.grace_period_ends_at, whatever writes the accounts (decision 182).
-- Row triggers, fired only for a row whose end is set or changes: a sign-in's UPDATE of last_login
-- costs nothing here. An account's deletion takes its row by the foreign key.
CREATE FUNCTION user_grace_periods_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.grace_period_ends_at IS NULL THEN
    DELETE FROM user_grace_periods WHERE user_id = NEW.id;
  ELSE
    INSERT INTO user_grace_periods (user_id, ends_at) VALUES (NEW.id, NEW.grace_period_ends_at)
      ON CONFLICT (user_id) DO UPDATE SET ends_at = EXCLUDED.ends_at;
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER user_grace_periods_on_insert AFTER INSERT ON users
  FOR EACH ROW WHEN (NEW.grace_period_ends_at IS NOT NULL) EXECUTE FUNCTION user_grace_periods_follow();
--> statement-breakpoint
CREATE TRIGGER user_grace_periods_on_update AFTER UPDATE OF grace_period_ends_at ON users
  FOR EACH ROW WHEN (OLD.grace_period_ends_at IS DISTINCT FROM NEW.grace_period_ends_at) EXECUTE FUNCTION user_grace_periods_follow();
--> statement-breakpoint
-- What db:reconcile compares user_grace_periods with and rebuilds it from.
CREATE FUNCTION user_grace_periods_recomputed() RETURNS SETOF user_grace_periods LANGUAGE sql STABLE AS $fn$
  SELECT id, grace_period_ends_at FROM users WHERE grace_period_ends_at IS NOT NULL
$fn$;
--> statement-breakpoint
INSERT INTO user_grace_periods SELECT * FROM user_grace_periods_recomputed();
--> statement-breakpoint
-- Room on each page for a changed row to stay there: an update that changes no indexed column then
-- writes no index entry (a HOT update). Pages written from now on keep 15% free.
ALTER TABLE users SET (fillfactor = 85);

--> statement-breakpoint
-- from src/modules/webhooks/webhooks.routines.sql
-- payments_revenue follows payments_ledger, whatever writes it (docs/decisions/124): statement
-- triggers add the statement's payments per upper-cased currency as signed deltas.
CREATE FUNCTION payments_revenue_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  changes text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT 1 AS sign, n.currency, n.amount FROM new_payments n'
    WHEN 'DELETE' THEN 'SELECT -1 AS sign, o.currency, o.amount FROM old_payments o'
    ELSE 'SELECT c.* FROM old_payments o JOIN new_payments n USING (id)
            CROSS JOIN LATERAL (SELECT -1 AS sign, o.currency, o.amount UNION ALL SELECT 1, n.currency, n.amount) AS c
          WHERE (o.currency, o.amount) IS DISTINCT FROM (n.currency, n.amount)'
  END;
BEGIN
  EXECUTE format($sql$
    INSERT INTO payments_revenue AS r (currency, amount, payments)
    SELECT upper(currency), sum(sign * amount), sum(sign) FROM (%s) AS changes GROUP BY 1
    -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
    ORDER BY 1
    ON CONFLICT (currency) DO UPDATE SET amount = r.amount + excluded.amount, payments = r.payments + excluded.payments
  $sql$, changes);
  IF TG_OP <> 'INSERT' THEN
    DELETE FROM payments_revenue WHERE payments = 0;
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER payments_revenue_on_insert AFTER INSERT ON payments_ledger
  REFERENCING NEW TABLE AS new_payments FOR EACH STATEMENT EXECUTE FUNCTION payments_revenue_follow();
--> statement-breakpoint
CREATE TRIGGER payments_revenue_on_update AFTER UPDATE ON payments_ledger
  REFERENCING OLD TABLE AS old_payments NEW TABLE AS new_payments FOR EACH STATEMENT EXECUTE FUNCTION payments_revenue_follow();
--> statement-breakpoint
CREATE TRIGGER payments_revenue_on_delete AFTER DELETE ON payments_ledger
  REFERENCING OLD TABLE AS old_payments FOR EACH STATEMENT EXECUTE FUNCTION payments_revenue_follow();
--> statement-breakpoint
CREATE TRIGGER payments_revenue_on_truncate AFTER TRUNCATE ON payments_ledger
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_clear('payments_revenue');
--> statement-breakpoint
-- The revenue as the ledger says it is: what db:reconcile compares payments_revenue with and
-- rebuilds it from, and what fills it once here for payments stored before it existed.
CREATE FUNCTION payments_revenue_recomputed() RETURNS SETOF payments_revenue LANGUAGE sql STABLE AS $fn$
  SELECT upper(currency), sum(amount), count(*)::int FROM payments_ledger GROUP BY 1
$fn$;
--> statement-breakpoint
INSERT INTO payments_revenue SELECT * FROM payments_revenue_recomputed();
--> statement-breakpoint
-- webhook_delivery_counts: deliveries per provider and status.
CREATE TRIGGER webhook_delivery_counts_on_insert AFTER INSERT ON webhook_deliveries REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_follow('webhook_delivery_counts', 'provider, status', 'r.provider, r.status');
--> statement-breakpoint
CREATE TRIGGER webhook_delivery_counts_on_update AFTER UPDATE ON webhook_deliveries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_follow('webhook_delivery_counts', 'provider, status', 'r.provider, r.status');
--> statement-breakpoint
CREATE TRIGGER webhook_delivery_counts_on_delete AFTER DELETE ON webhook_deliveries REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_follow('webhook_delivery_counts', 'provider, status', 'r.provider, r.status');
--> statement-breakpoint
CREATE TRIGGER webhook_delivery_counts_on_truncate AFTER TRUNCATE ON webhook_deliveries
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_clear('webhook_delivery_counts');
--> statement-breakpoint
CREATE FUNCTION webhook_delivery_counts_recomputed() RETURNS SETOF webhook_delivery_counts LANGUAGE sql STABLE AS $fn$
  SELECT provider, status, count(*)::int FROM webhook_deliveries GROUP BY 1, 2
$fn$;
--> statement-breakpoint
INSERT INTO webhook_delivery_counts SELECT * FROM webhook_delivery_counts_recomputed();
--> statement-breakpoint
-- webhook_delivery_hours: deliveries per provider and hour of receipt.
CREATE TRIGGER webhook_delivery_hours_on_insert AFTER INSERT ON webhook_deliveries REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_follow('webhook_delivery_hours', 'provider, hour', 'r.provider, date_trunc(''hour'', r.received_at)');
--> statement-breakpoint
CREATE TRIGGER webhook_delivery_hours_on_update AFTER UPDATE ON webhook_deliveries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_follow('webhook_delivery_hours', 'provider, hour', 'r.provider, date_trunc(''hour'', r.received_at)');
--> statement-breakpoint
CREATE TRIGGER webhook_delivery_hours_on_delete AFTER DELETE ON webhook_deliveries REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_follow('webhook_delivery_hours', 'provider, hour', 'r.provider, date_trunc(''hour'', r.received_at)');
--> statement-breakpoint
CREATE TRIGGER webhook_delivery_hours_on_truncate AFTER TRUNCATE ON webhook_deliveries
  FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_clear('webhook_delivery_hours');
--> statement-breakpoint
CREATE FUNCTION webhook_delivery_hours_recomputed() RETURNS SETOF webhook_delivery_hours LANGUAGE sql STABLE AS $fn$
  SELECT provider, date_trunc('hour', received_at), count(*)::int FROM webhook_deliveries GROUP BY 1, 2
$fn$;
--> statement-breakpoint
INSERT INTO webhook_delivery_hours SELECT * FROM webhook_delivery_hours_recomputed();
