-- from src/platform/db/platform.routines.sql
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
-- A venue's days of one user in day order with their counts, read from the index alone: a list's total
-- sums them, and a deep page walks them oldest first and stops at its day (trades.repository.ts,
-- decision 191). Written here because the schema's index builder has no INCLUDE.
CREATE INDEX exchange_trade_days_venue_day_idx ON exchange_trade_days (user_id, exchange, day) INCLUDE (total_trades);

--> statement-breakpoint
-- from src/modules/strategies/strategies.routines.sql
-- strategy_status_counts follows strategies.status, whatever writes the strategies (decision 931): the
-- autopilot reads how many are in paper from one row instead of counting them. Inserts and deletes by
-- statement triggers (a bulk insert costs one grouped upsert); a status change by a row trigger fired
-- only when the status changes, so a fill's UPDATE of a strategy's figures costs nothing here (a
-- statement trigger with transition tables would run on every UPDATE).
CREATE FUNCTION strategy_status_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM strategy_status_counts;
    RETURN NULL;
  END IF;
  -- In status order: writers moving strategies the other way round take the rows' locks in one order.
  IF TG_OP = 'INSERT' THEN
    INSERT INTO strategy_status_counts AS kept (status, n)
    SELECT status, count(*)::int FROM came_strategies GROUP BY status ORDER BY status
    ON CONFLICT (status) DO UPDATE SET n = kept.n + excluded.n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO strategy_status_counts AS kept (status, n)
    SELECT status, -count(*)::int FROM gone_strategies GROUP BY status ORDER BY status
    ON CONFLICT (status) DO UPDATE SET n = kept.n + excluded.n;
    DELETE FROM strategy_status_counts WHERE n = 0 AND status IN (SELECT status FROM gone_strategies);
  ELSE
    INSERT INTO strategy_status_counts AS kept (status, n)
    SELECT status, sum(n)::int FROM (VALUES (OLD.status, -1), (NEW.status, 1)) AS moved (status, n)
    GROUP BY status ORDER BY status
    ON CONFLICT (status) DO UPDATE SET n = kept.n + excluded.n;
    DELETE FROM strategy_status_counts WHERE status = OLD.status AND n = 0;
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER strategy_status_counts_on_insert AFTER INSERT ON strategies REFERENCING NEW TABLE AS came_strategies
  FOR EACH STATEMENT EXECUTE FUNCTION strategy_status_counts_follow();
--> statement-breakpoint
CREATE TRIGGER strategy_status_counts_on_delete AFTER DELETE ON strategies REFERENCING OLD TABLE AS gone_strategies
  FOR EACH STATEMENT EXECUTE FUNCTION strategy_status_counts_follow();
--> statement-breakpoint
CREATE TRIGGER strategy_status_counts_on_truncate AFTER TRUNCATE ON strategies
  FOR EACH STATEMENT EXECUTE FUNCTION strategy_status_counts_follow();
--> statement-breakpoint
CREATE TRIGGER strategy_status_counts_on_update AFTER UPDATE OF status ON strategies
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION strategy_status_counts_follow();
--> statement-breakpoint
-- What db:reconcile compares strategy_status_counts with and rebuilds it from.
CREATE FUNCTION strategy_status_counts_recomputed() RETURNS SETOF strategy_status_counts LANGUAGE sql STABLE AS $fn$
  SELECT status, count(*)::int FROM strategies GROUP BY status
$fn$;
--> statement-breakpoint
INSERT INTO strategy_status_counts SELECT * FROM strategy_status_counts_recomputed();

--> statement-breakpoint
-- from src/modules/users/users.routines.sql
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
-- user_counts: kept from users as its module's figures.ts declares it (generated by db:generate).
-- Statement triggers, so a bulk write costs one grouped upsert; each statement is planned with its
-- rows (EXECUTE), as a plan cached for a one-row statement may not suit a bulk load's.
CREATE FUNCTION user_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE $sql$
      INSERT INTO user_counts AS kept (status, role, subscription_tier, created_day, n)
      SELECT status, role, subscription_tier, created_day, sum(sign)
      FROM (SELECT 1 AS sign, * FROM (SELECT status, role, subscription_tier, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM new_rows) AS came) AS changes
      GROUP BY 1, 2, 3, 4
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2, 3, 4
      ON CONFLICT (status, role, subscription_tier, created_day) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
  ELSIF TG_OP = 'UPDATE' THEN
    EXECUTE $sql$
      INSERT INTO user_counts AS kept (status, role, subscription_tier, created_day, n)
      SELECT status, role, subscription_tier, created_day, sum(sign)
      FROM (SELECT -1 AS sign, * FROM (SELECT status, role, subscription_tier, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM old_rows
        EXCEPT ALL SELECT status, role, subscription_tier, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM new_rows) AS gone
        UNION ALL SELECT 1, * FROM (SELECT status, role, subscription_tier, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM new_rows
        EXCEPT ALL SELECT status, role, subscription_tier, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM old_rows) AS came) AS changes
      GROUP BY 1, 2, 3, 4
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2, 3, 4
      ON CONFLICT (status, role, subscription_tier, created_day) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
    EXECUTE $sql$
      DELETE FROM user_counts AS kept USING (SELECT DISTINCT status, role, subscription_tier, created_day FROM (SELECT status, role, subscription_tier, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM old_rows
        EXCEPT ALL SELECT status, role, subscription_tier, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM new_rows) AS gone) AS k
      WHERE kept.status = k.status AND kept.role = k.role AND kept.subscription_tier = k.subscription_tier AND kept.created_day = k.created_day AND kept.n = 0
    $sql$;
  ELSIF TG_OP = 'DELETE' THEN
    EXECUTE $sql$
      INSERT INTO user_counts AS kept (status, role, subscription_tier, created_day, n)
      SELECT status, role, subscription_tier, created_day, sum(sign)
      FROM (SELECT -1 AS sign, * FROM (SELECT status, role, subscription_tier, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM old_rows) AS gone) AS changes
      GROUP BY 1, 2, 3, 4
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2, 3, 4
      ON CONFLICT (status, role, subscription_tier, created_day) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
    EXECUTE $sql$
      DELETE FROM user_counts AS kept USING (SELECT DISTINCT status, role, subscription_tier, created_day FROM (SELECT status, role, subscription_tier, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM old_rows) AS gone) AS k
      WHERE kept.status = k.status AND kept.role = k.role AND kept.subscription_tier = k.subscription_tier AND kept.created_day = k.created_day AND kept.n = 0
    $sql$;
  ELSE
    DELETE FROM user_counts;
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER user_counts_on_insert AFTER INSERT ON users REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION user_counts_follow();
--> statement-breakpoint
CREATE TRIGGER user_counts_on_update AFTER UPDATE ON users REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION user_counts_follow();
--> statement-breakpoint
CREATE TRIGGER user_counts_on_delete AFTER DELETE ON users REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION user_counts_follow();
--> statement-breakpoint
CREATE TRIGGER user_counts_on_truncate AFTER TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION user_counts_follow();
--> statement-breakpoint
-- user_counts as the rows of users say it is: what db:reconcile compares it with and rebuilds it from.
CREATE FUNCTION user_counts_recomputed() RETURNS SETOF user_counts LANGUAGE sql STABLE AS $fn$
  SELECT status, role, subscription_tier, (created_at AT TIME ZONE 'UTC')::date, count(*)::int
  FROM users
  GROUP BY 1, 2, 3, 4
$fn$;
--> statement-breakpoint
-- Filled once for rows stored before it was kept.
INSERT INTO user_counts SELECT * FROM user_counts_recomputed();
--> statement-breakpoint
-- user_day_counts: kept from users as its module's figures.ts declares it (generated by db:generate).
-- Statement triggers, so a bulk write costs one grouped upsert; each statement is planned with its
-- rows (EXECUTE), as a plan cached for a one-row statement may not suit a bulk load's.
CREATE FUNCTION user_day_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE $sql$
      INSERT INTO user_day_counts AS kept (status, created_day, n)
      SELECT status, created_day, sum(sign)
      FROM (SELECT 1 AS sign, * FROM (SELECT status, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM new_rows) AS came) AS changes
      GROUP BY 1, 2
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2
      ON CONFLICT (status, created_day) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
  ELSIF TG_OP = 'UPDATE' THEN
    EXECUTE $sql$
      INSERT INTO user_day_counts AS kept (status, created_day, n)
      SELECT status, created_day, sum(sign)
      FROM (SELECT -1 AS sign, * FROM (SELECT status, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM old_rows
        EXCEPT ALL SELECT status, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM new_rows) AS gone
        UNION ALL SELECT 1, * FROM (SELECT status, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM new_rows
        EXCEPT ALL SELECT status, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM old_rows) AS came) AS changes
      GROUP BY 1, 2
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2
      ON CONFLICT (status, created_day) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
    EXECUTE $sql$
      DELETE FROM user_day_counts AS kept USING (SELECT DISTINCT status, created_day FROM (SELECT status, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM old_rows
        EXCEPT ALL SELECT status, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM new_rows) AS gone) AS k
      WHERE kept.status = k.status AND kept.created_day = k.created_day AND kept.n = 0
    $sql$;
  ELSIF TG_OP = 'DELETE' THEN
    EXECUTE $sql$
      INSERT INTO user_day_counts AS kept (status, created_day, n)
      SELECT status, created_day, sum(sign)
      FROM (SELECT -1 AS sign, * FROM (SELECT status, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM old_rows) AS gone) AS changes
      GROUP BY 1, 2
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2
      ON CONFLICT (status, created_day) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
    EXECUTE $sql$
      DELETE FROM user_day_counts AS kept USING (SELECT DISTINCT status, created_day FROM (SELECT status, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM old_rows) AS gone) AS k
      WHERE kept.status = k.status AND kept.created_day = k.created_day AND kept.n = 0
    $sql$;
  ELSE
    DELETE FROM user_day_counts;
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER user_day_counts_on_insert AFTER INSERT ON users REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION user_day_counts_follow();
--> statement-breakpoint
CREATE TRIGGER user_day_counts_on_update AFTER UPDATE ON users REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION user_day_counts_follow();
--> statement-breakpoint
CREATE TRIGGER user_day_counts_on_delete AFTER DELETE ON users REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION user_day_counts_follow();
--> statement-breakpoint
CREATE TRIGGER user_day_counts_on_truncate AFTER TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION user_day_counts_follow();
--> statement-breakpoint
-- user_day_counts as the rows of users say it is: what db:reconcile compares it with and rebuilds it from.
CREATE FUNCTION user_day_counts_recomputed() RETURNS SETOF user_day_counts LANGUAGE sql STABLE AS $fn$
  SELECT status, (created_at AT TIME ZONE 'UTC')::date, count(*)::int
  FROM users
  GROUP BY 1, 2
$fn$;
--> statement-breakpoint
-- Filled once for rows stored before it was kept.
INSERT INTO user_day_counts SELECT * FROM user_day_counts_recomputed();
--> statement-breakpoint
-- device_session_expiry_days: kept from device_sessions as its module's figures.ts declares it (generated by db:generate).
-- Statement triggers, so a bulk write costs one grouped upsert; each statement is planned with its
-- rows (EXECUTE), as a plan cached for a one-row statement may not suit a bulk load's.
CREATE FUNCTION device_session_expiry_days_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE $sql$
      INSERT INTO device_session_expiry_days AS kept (day, n)
      SELECT day, sum(sign)
      FROM (SELECT 1 AS sign, * FROM (SELECT (expires_at AT TIME ZONE 'UTC')::date AS day FROM new_rows WHERE revoked_at IS NULL) AS came) AS changes
      GROUP BY 1
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1
      ON CONFLICT (day) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
  ELSIF TG_OP = 'UPDATE' THEN
    EXECUTE $sql$
      INSERT INTO device_session_expiry_days AS kept (day, n)
      SELECT day, sum(sign)
      FROM (SELECT -1 AS sign, * FROM (SELECT (expires_at AT TIME ZONE 'UTC')::date AS day FROM old_rows WHERE revoked_at IS NULL
        EXCEPT ALL SELECT (expires_at AT TIME ZONE 'UTC')::date AS day FROM new_rows WHERE revoked_at IS NULL) AS gone
        UNION ALL SELECT 1, * FROM (SELECT (expires_at AT TIME ZONE 'UTC')::date AS day FROM new_rows WHERE revoked_at IS NULL
        EXCEPT ALL SELECT (expires_at AT TIME ZONE 'UTC')::date AS day FROM old_rows WHERE revoked_at IS NULL) AS came) AS changes
      GROUP BY 1
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1
      ON CONFLICT (day) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
    EXECUTE $sql$
      DELETE FROM device_session_expiry_days AS kept USING (SELECT DISTINCT day FROM (SELECT (expires_at AT TIME ZONE 'UTC')::date AS day FROM old_rows WHERE revoked_at IS NULL
        EXCEPT ALL SELECT (expires_at AT TIME ZONE 'UTC')::date AS day FROM new_rows WHERE revoked_at IS NULL) AS gone) AS k
      WHERE kept.day = k.day AND kept.n = 0
    $sql$;
  ELSIF TG_OP = 'DELETE' THEN
    EXECUTE $sql$
      INSERT INTO device_session_expiry_days AS kept (day, n)
      SELECT day, sum(sign)
      FROM (SELECT -1 AS sign, * FROM (SELECT (expires_at AT TIME ZONE 'UTC')::date AS day FROM old_rows WHERE revoked_at IS NULL) AS gone) AS changes
      GROUP BY 1
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1
      ON CONFLICT (day) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
    EXECUTE $sql$
      DELETE FROM device_session_expiry_days AS kept USING (SELECT DISTINCT day FROM (SELECT (expires_at AT TIME ZONE 'UTC')::date AS day FROM old_rows WHERE revoked_at IS NULL) AS gone) AS k
      WHERE kept.day = k.day AND kept.n = 0
    $sql$;
  ELSE
    DELETE FROM device_session_expiry_days;
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER device_session_expiry_days_on_insert AFTER INSERT ON device_sessions REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION device_session_expiry_days_follow();
--> statement-breakpoint
CREATE TRIGGER device_session_expiry_days_on_update AFTER UPDATE ON device_sessions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION device_session_expiry_days_follow();
--> statement-breakpoint
CREATE TRIGGER device_session_expiry_days_on_delete AFTER DELETE ON device_sessions REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION device_session_expiry_days_follow();
--> statement-breakpoint
CREATE TRIGGER device_session_expiry_days_on_truncate AFTER TRUNCATE ON device_sessions
  FOR EACH STATEMENT EXECUTE FUNCTION device_session_expiry_days_follow();
--> statement-breakpoint
-- device_session_expiry_days as the rows of device_sessions say it is: what db:reconcile compares it with and rebuilds it from.
CREATE FUNCTION device_session_expiry_days_recomputed() RETURNS SETOF device_session_expiry_days LANGUAGE sql STABLE AS $fn$
  SELECT (expires_at AT TIME ZONE 'UTC')::date, count(*)::int
  FROM device_sessions WHERE revoked_at IS NULL
  GROUP BY 1
$fn$;
--> statement-breakpoint
-- Filled once for rows stored before it was kept.
INSERT INTO device_session_expiry_days SELECT * FROM device_session_expiry_days_recomputed();
--> statement-breakpoint
-- exchange_trade_days: kept from exchange_trades as its module's figures.ts declares it (generated by db:generate).
-- Statement triggers, so a bulk write costs one grouped upsert; each statement is planned with its
-- rows (EXECUTE), as a plan cached for a one-row statement may not suit a bulk load's.
CREATE FUNCTION exchange_trade_days_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE $sql$
      INSERT INTO exchange_trade_days AS kept (user_id, exchange, symbol, day, total_trades, buy_count, sell_count, synced_count, failed_count, total_volume, total_fees, first_trade, last_trade)
      SELECT user_id, exchange, symbol, day, sum(sign), coalesce(sum(sign) FILTER (WHERE buy_count), 0), coalesce(sum(sign) FILTER (WHERE sell_count), 0), coalesce(sum(sign) FILTER (WHERE synced_count), 0), coalesce(sum(sign) FILTER (WHERE failed_count), 0), coalesce(sum(sign * total_volume), 0), coalesce(sum(sign * total_fees), 0), min(first_trade) FILTER (WHERE sign > 0), max(last_trade) FILTER (WHERE sign > 0)
      FROM (SELECT 1 AS sign, * FROM (SELECT user_id, exchange, symbol, (trade_timestamp AT TIME ZONE 'UTC')::date AS day, (side = 'buy') AS buy_count, (side = 'sell') AS sell_count, (sync_status = 'synced') AS synced_count, (sync_status = 'failed') AS failed_count, total AS total_volume, fee AS total_fees, trade_timestamp AS first_trade, trade_timestamp AS last_trade FROM new_rows) AS came) AS changes
      GROUP BY 1, 2, 3, 4
      HAVING sum(sign) <> 0 OR coalesce(sum(sign) FILTER (WHERE buy_count), 0) <> 0 OR coalesce(sum(sign) FILTER (WHERE sell_count), 0) <> 0 OR coalesce(sum(sign) FILTER (WHERE synced_count), 0) <> 0 OR coalesce(sum(sign) FILTER (WHERE failed_count), 0) <> 0 OR coalesce(sum(sign * total_volume), 0) <> 0 OR coalesce(sum(sign * total_fees), 0) <> 0 OR bool_or(sign > 0)
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2, 3, 4
      ON CONFLICT (user_id, exchange, symbol, day) DO UPDATE SET total_trades = kept.total_trades + excluded.total_trades, buy_count = kept.buy_count + excluded.buy_count, sell_count = kept.sell_count + excluded.sell_count, synced_count = kept.synced_count + excluded.synced_count, failed_count = kept.failed_count + excluded.failed_count, total_volume = kept.total_volume + excluded.total_volume, total_fees = kept.total_fees + excluded.total_fees, first_trade = least(kept.first_trade, excluded.first_trade), last_trade = greatest(kept.last_trade, excluded.last_trade)
    $sql$;
  ELSIF TG_OP = 'UPDATE' THEN
    EXECUTE $sql$
      INSERT INTO exchange_trade_days AS kept (user_id, exchange, symbol, day, total_trades, buy_count, sell_count, synced_count, failed_count, total_volume, total_fees, first_trade, last_trade)
      SELECT user_id, exchange, symbol, day, sum(sign), coalesce(sum(sign) FILTER (WHERE buy_count), 0), coalesce(sum(sign) FILTER (WHERE sell_count), 0), coalesce(sum(sign) FILTER (WHERE synced_count), 0), coalesce(sum(sign) FILTER (WHERE failed_count), 0), coalesce(sum(sign * total_volume), 0), coalesce(sum(sign * total_fees), 0), min(first_trade) FILTER (WHERE sign > 0), max(last_trade) FILTER (WHERE sign > 0)
      FROM (SELECT -1 AS sign, * FROM (SELECT user_id, exchange, symbol, (trade_timestamp AT TIME ZONE 'UTC')::date AS day, (side = 'buy') AS buy_count, (side = 'sell') AS sell_count, (sync_status = 'synced') AS synced_count, (sync_status = 'failed') AS failed_count, total AS total_volume, fee AS total_fees, trade_timestamp AS first_trade, trade_timestamp AS last_trade FROM old_rows
        EXCEPT ALL SELECT user_id, exchange, symbol, (trade_timestamp AT TIME ZONE 'UTC')::date AS day, (side = 'buy') AS buy_count, (side = 'sell') AS sell_count, (sync_status = 'synced') AS synced_count, (sync_status = 'failed') AS failed_count, total AS total_volume, fee AS total_fees, trade_timestamp AS first_trade, trade_timestamp AS last_trade FROM new_rows) AS gone
        UNION ALL SELECT 1, * FROM (SELECT user_id, exchange, symbol, (trade_timestamp AT TIME ZONE 'UTC')::date AS day, (side = 'buy') AS buy_count, (side = 'sell') AS sell_count, (sync_status = 'synced') AS synced_count, (sync_status = 'failed') AS failed_count, total AS total_volume, fee AS total_fees, trade_timestamp AS first_trade, trade_timestamp AS last_trade FROM new_rows
        EXCEPT ALL SELECT user_id, exchange, symbol, (trade_timestamp AT TIME ZONE 'UTC')::date AS day, (side = 'buy') AS buy_count, (side = 'sell') AS sell_count, (sync_status = 'synced') AS synced_count, (sync_status = 'failed') AS failed_count, total AS total_volume, fee AS total_fees, trade_timestamp AS first_trade, trade_timestamp AS last_trade FROM old_rows) AS came) AS changes
      GROUP BY 1, 2, 3, 4
      HAVING sum(sign) <> 0 OR coalesce(sum(sign) FILTER (WHERE buy_count), 0) <> 0 OR coalesce(sum(sign) FILTER (WHERE sell_count), 0) <> 0 OR coalesce(sum(sign) FILTER (WHERE synced_count), 0) <> 0 OR coalesce(sum(sign) FILTER (WHERE failed_count), 0) <> 0 OR coalesce(sum(sign * total_volume), 0) <> 0 OR coalesce(sum(sign * total_fees), 0) <> 0 OR bool_or(sign > 0)
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2, 3, 4
      ON CONFLICT (user_id, exchange, symbol, day) DO UPDATE SET total_trades = kept.total_trades + excluded.total_trades, buy_count = kept.buy_count + excluded.buy_count, sell_count = kept.sell_count + excluded.sell_count, synced_count = kept.synced_count + excluded.synced_count, failed_count = kept.failed_count + excluded.failed_count, total_volume = kept.total_volume + excluded.total_volume, total_fees = kept.total_fees + excluded.total_fees, first_trade = least(kept.first_trade, excluded.first_trade), last_trade = greatest(kept.last_trade, excluded.last_trade)
    $sql$;
    EXECUTE $sql$
      DELETE FROM exchange_trade_days AS kept USING (SELECT DISTINCT user_id, exchange, symbol, day FROM (SELECT user_id, exchange, symbol, (trade_timestamp AT TIME ZONE 'UTC')::date AS day, (side = 'buy') AS buy_count, (side = 'sell') AS sell_count, (sync_status = 'synced') AS synced_count, (sync_status = 'failed') AS failed_count, total AS total_volume, fee AS total_fees, trade_timestamp AS first_trade, trade_timestamp AS last_trade FROM old_rows
        EXCEPT ALL SELECT user_id, exchange, symbol, (trade_timestamp AT TIME ZONE 'UTC')::date AS day, (side = 'buy') AS buy_count, (side = 'sell') AS sell_count, (sync_status = 'synced') AS synced_count, (sync_status = 'failed') AS failed_count, total AS total_volume, fee AS total_fees, trade_timestamp AS first_trade, trade_timestamp AS last_trade FROM new_rows) AS gone) AS k
      WHERE kept.user_id = k.user_id AND kept.exchange = k.exchange AND kept.symbol = k.symbol AND kept.day = k.day AND kept.total_trades = 0
    $sql$;
    EXECUTE $sql$
      UPDATE exchange_trade_days AS kept SET first_trade = span.first_trade, last_trade = span.last_trade
      FROM (SELECT DISTINCT user_id, exchange, symbol, day FROM (SELECT user_id, exchange, symbol, (trade_timestamp AT TIME ZONE 'UTC')::date AS day, (side = 'buy') AS buy_count, (side = 'sell') AS sell_count, (sync_status = 'synced') AS synced_count, (sync_status = 'failed') AS failed_count, total AS total_volume, fee AS total_fees, trade_timestamp AS first_trade, trade_timestamp AS last_trade FROM old_rows
        EXCEPT ALL SELECT user_id, exchange, symbol, (trade_timestamp AT TIME ZONE 'UTC')::date AS day, (side = 'buy') AS buy_count, (side = 'sell') AS sell_count, (sync_status = 'synced') AS synced_count, (sync_status = 'failed') AS failed_count, total AS total_volume, fee AS total_fees, trade_timestamp AS first_trade, trade_timestamp AS last_trade FROM new_rows) AS gone) AS k CROSS JOIN LATERAL (
        SELECT min(trade_timestamp) AS first_trade, max(trade_timestamp) AS last_trade
        FROM exchange_trades WHERE user_id = k.user_id AND exchange = k.exchange AND symbol = k.symbol AND trade_timestamp >= k.day::timestamp AT TIME ZONE 'UTC' AND trade_timestamp < (k.day + 1)::timestamp AT TIME ZONE 'UTC'
      ) AS span
      WHERE kept.user_id = k.user_id AND kept.exchange = k.exchange AND kept.symbol = k.symbol AND kept.day = k.day
    $sql$;
  ELSIF TG_OP = 'DELETE' THEN
    EXECUTE $sql$
      INSERT INTO exchange_trade_days AS kept (user_id, exchange, symbol, day, total_trades, buy_count, sell_count, synced_count, failed_count, total_volume, total_fees, first_trade, last_trade)
      SELECT user_id, exchange, symbol, day, sum(sign), coalesce(sum(sign) FILTER (WHERE buy_count), 0), coalesce(sum(sign) FILTER (WHERE sell_count), 0), coalesce(sum(sign) FILTER (WHERE synced_count), 0), coalesce(sum(sign) FILTER (WHERE failed_count), 0), coalesce(sum(sign * total_volume), 0), coalesce(sum(sign * total_fees), 0), min(first_trade) FILTER (WHERE sign > 0), max(last_trade) FILTER (WHERE sign > 0)
      FROM (SELECT -1 AS sign, * FROM (SELECT user_id, exchange, symbol, (trade_timestamp AT TIME ZONE 'UTC')::date AS day, (side = 'buy') AS buy_count, (side = 'sell') AS sell_count, (sync_status = 'synced') AS synced_count, (sync_status = 'failed') AS failed_count, total AS total_volume, fee AS total_fees, trade_timestamp AS first_trade, trade_timestamp AS last_trade FROM old_rows) AS gone) AS changes
      GROUP BY 1, 2, 3, 4
      HAVING sum(sign) <> 0 OR coalesce(sum(sign) FILTER (WHERE buy_count), 0) <> 0 OR coalesce(sum(sign) FILTER (WHERE sell_count), 0) <> 0 OR coalesce(sum(sign) FILTER (WHERE synced_count), 0) <> 0 OR coalesce(sum(sign) FILTER (WHERE failed_count), 0) <> 0 OR coalesce(sum(sign * total_volume), 0) <> 0 OR coalesce(sum(sign * total_fees), 0) <> 0 OR bool_or(sign > 0)
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2, 3, 4
      ON CONFLICT (user_id, exchange, symbol, day) DO UPDATE SET total_trades = kept.total_trades + excluded.total_trades, buy_count = kept.buy_count + excluded.buy_count, sell_count = kept.sell_count + excluded.sell_count, synced_count = kept.synced_count + excluded.synced_count, failed_count = kept.failed_count + excluded.failed_count, total_volume = kept.total_volume + excluded.total_volume, total_fees = kept.total_fees + excluded.total_fees, first_trade = least(kept.first_trade, excluded.first_trade), last_trade = greatest(kept.last_trade, excluded.last_trade)
    $sql$;
    EXECUTE $sql$
      DELETE FROM exchange_trade_days AS kept USING (SELECT DISTINCT user_id, exchange, symbol, day FROM (SELECT user_id, exchange, symbol, (trade_timestamp AT TIME ZONE 'UTC')::date AS day, (side = 'buy') AS buy_count, (side = 'sell') AS sell_count, (sync_status = 'synced') AS synced_count, (sync_status = 'failed') AS failed_count, total AS total_volume, fee AS total_fees, trade_timestamp AS first_trade, trade_timestamp AS last_trade FROM old_rows) AS gone) AS k
      WHERE kept.user_id = k.user_id AND kept.exchange = k.exchange AND kept.symbol = k.symbol AND kept.day = k.day AND kept.total_trades = 0
    $sql$;
    EXECUTE $sql$
      UPDATE exchange_trade_days AS kept SET first_trade = span.first_trade, last_trade = span.last_trade
      FROM (SELECT DISTINCT user_id, exchange, symbol, day FROM (SELECT user_id, exchange, symbol, (trade_timestamp AT TIME ZONE 'UTC')::date AS day, (side = 'buy') AS buy_count, (side = 'sell') AS sell_count, (sync_status = 'synced') AS synced_count, (sync_status = 'failed') AS failed_count, total AS total_volume, fee AS total_fees, trade_timestamp AS first_trade, trade_timestamp AS last_trade FROM old_rows) AS gone) AS k CROSS JOIN LATERAL (
        SELECT min(trade_timestamp) AS first_trade, max(trade_timestamp) AS last_trade
        FROM exchange_trades WHERE user_id = k.user_id AND exchange = k.exchange AND symbol = k.symbol AND trade_timestamp >= k.day::timestamp AT TIME ZONE 'UTC' AND trade_timestamp < (k.day + 1)::timestamp AT TIME ZONE 'UTC'
      ) AS span
      WHERE kept.user_id = k.user_id AND kept.exchange = k.exchange AND kept.symbol = k.symbol AND kept.day = k.day
    $sql$;
  ELSE
    DELETE FROM exchange_trade_days;
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER exchange_trade_days_on_insert AFTER INSERT ON exchange_trades REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION exchange_trade_days_follow();
--> statement-breakpoint
CREATE TRIGGER exchange_trade_days_on_update AFTER UPDATE ON exchange_trades REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION exchange_trade_days_follow();
--> statement-breakpoint
CREATE TRIGGER exchange_trade_days_on_delete AFTER DELETE ON exchange_trades REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION exchange_trade_days_follow();
--> statement-breakpoint
CREATE TRIGGER exchange_trade_days_on_truncate AFTER TRUNCATE ON exchange_trades
  FOR EACH STATEMENT EXECUTE FUNCTION exchange_trade_days_follow();
--> statement-breakpoint
-- exchange_trade_days as the rows of exchange_trades say it is: what db:reconcile compares it with and rebuilds it from.
CREATE FUNCTION exchange_trade_days_recomputed() RETURNS SETOF exchange_trade_days LANGUAGE sql STABLE AS $fn$
  SELECT user_id, exchange, symbol, (trade_timestamp AT TIME ZONE 'UTC')::date, count(*)::int, (count(*) FILTER (WHERE side = 'buy'))::int, (count(*) FILTER (WHERE side = 'sell'))::int, (count(*) FILTER (WHERE sync_status = 'synced'))::int, (count(*) FILTER (WHERE sync_status = 'failed'))::int, coalesce(sum(total), 0), coalesce(sum(fee), 0), min(trade_timestamp), max(trade_timestamp)
  FROM exchange_trades
  GROUP BY 1, 2, 3, 4
$fn$;
--> statement-breakpoint
-- Filled once for rows stored before it was kept.
INSERT INTO exchange_trade_days SELECT * FROM exchange_trade_days_recomputed();
--> statement-breakpoint
-- exchange_trade_counts: kept from exchange_trades as its module's figures.ts declares it (generated by db:generate).
-- Statement triggers, so a bulk write costs one grouped upsert; each statement is planned with its
-- rows (EXECUTE), as a plan cached for a one-row statement may not suit a bulk load's.
CREATE FUNCTION exchange_trade_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE $sql$
      INSERT INTO exchange_trade_counts AS kept (user_id, total_trades)
      SELECT user_id, sum(sign)
      FROM (SELECT 1 AS sign, * FROM (SELECT user_id FROM new_rows) AS came) AS changes
      GROUP BY 1
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1
      ON CONFLICT (user_id) DO UPDATE SET total_trades = kept.total_trades + excluded.total_trades
    $sql$;
  ELSIF TG_OP = 'UPDATE' THEN
    EXECUTE $sql$
      INSERT INTO exchange_trade_counts AS kept (user_id, total_trades)
      SELECT user_id, sum(sign)
      FROM (SELECT -1 AS sign, * FROM (SELECT user_id FROM old_rows
        EXCEPT ALL SELECT user_id FROM new_rows) AS gone
        UNION ALL SELECT 1, * FROM (SELECT user_id FROM new_rows
        EXCEPT ALL SELECT user_id FROM old_rows) AS came) AS changes
      GROUP BY 1
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1
      ON CONFLICT (user_id) DO UPDATE SET total_trades = kept.total_trades + excluded.total_trades
    $sql$;
    EXECUTE $sql$
      DELETE FROM exchange_trade_counts AS kept USING (SELECT DISTINCT user_id FROM (SELECT user_id FROM old_rows
        EXCEPT ALL SELECT user_id FROM new_rows) AS gone) AS k
      WHERE kept.user_id = k.user_id AND kept.total_trades = 0
    $sql$;
  ELSIF TG_OP = 'DELETE' THEN
    EXECUTE $sql$
      INSERT INTO exchange_trade_counts AS kept (user_id, total_trades)
      SELECT user_id, sum(sign)
      FROM (SELECT -1 AS sign, * FROM (SELECT user_id FROM old_rows) AS gone) AS changes
      GROUP BY 1
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1
      ON CONFLICT (user_id) DO UPDATE SET total_trades = kept.total_trades + excluded.total_trades
    $sql$;
    EXECUTE $sql$
      DELETE FROM exchange_trade_counts AS kept USING (SELECT DISTINCT user_id FROM (SELECT user_id FROM old_rows) AS gone) AS k
      WHERE kept.user_id = k.user_id AND kept.total_trades = 0
    $sql$;
  ELSE
    DELETE FROM exchange_trade_counts;
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER exchange_trade_counts_on_insert AFTER INSERT ON exchange_trades REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION exchange_trade_counts_follow();
--> statement-breakpoint
CREATE TRIGGER exchange_trade_counts_on_update AFTER UPDATE ON exchange_trades REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION exchange_trade_counts_follow();
--> statement-breakpoint
CREATE TRIGGER exchange_trade_counts_on_delete AFTER DELETE ON exchange_trades REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION exchange_trade_counts_follow();
--> statement-breakpoint
CREATE TRIGGER exchange_trade_counts_on_truncate AFTER TRUNCATE ON exchange_trades
  FOR EACH STATEMENT EXECUTE FUNCTION exchange_trade_counts_follow();
--> statement-breakpoint
-- exchange_trade_counts as the rows of exchange_trades say it is: what db:reconcile compares it with and rebuilds it from.
CREATE FUNCTION exchange_trade_counts_recomputed() RETURNS SETOF exchange_trade_counts LANGUAGE sql STABLE AS $fn$
  SELECT user_id, count(*)::int
  FROM exchange_trades
  GROUP BY 1
$fn$;
--> statement-breakpoint
-- Filled once for rows stored before it was kept.
INSERT INTO exchange_trade_counts SELECT * FROM exchange_trade_counts_recomputed();
--> statement-breakpoint
-- payments_revenue: kept from payments_ledger as its module's figures.ts declares it (generated by db:generate).
-- Statement triggers, so a bulk write costs one grouped upsert; each statement is planned with its
-- rows (EXECUTE), as a plan cached for a one-row statement may not suit a bulk load's.
CREATE FUNCTION payments_revenue_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE $sql$
      INSERT INTO payments_revenue AS kept (currency, amount, payments)
      SELECT currency, coalesce(sum(sign * amount), 0), sum(sign)
      FROM (SELECT 1 AS sign, * FROM (SELECT upper(currency) AS currency, amount AS amount FROM new_rows) AS came) AS changes
      GROUP BY 1
      HAVING coalesce(sum(sign * amount), 0) <> 0 OR sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1
      ON CONFLICT (currency) DO UPDATE SET amount = kept.amount + excluded.amount, payments = kept.payments + excluded.payments
    $sql$;
  ELSIF TG_OP = 'UPDATE' THEN
    EXECUTE $sql$
      INSERT INTO payments_revenue AS kept (currency, amount, payments)
      SELECT currency, coalesce(sum(sign * amount), 0), sum(sign)
      FROM (SELECT -1 AS sign, * FROM (SELECT upper(currency) AS currency, amount AS amount FROM old_rows
        EXCEPT ALL SELECT upper(currency) AS currency, amount AS amount FROM new_rows) AS gone
        UNION ALL SELECT 1, * FROM (SELECT upper(currency) AS currency, amount AS amount FROM new_rows
        EXCEPT ALL SELECT upper(currency) AS currency, amount AS amount FROM old_rows) AS came) AS changes
      GROUP BY 1
      HAVING coalesce(sum(sign * amount), 0) <> 0 OR sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1
      ON CONFLICT (currency) DO UPDATE SET amount = kept.amount + excluded.amount, payments = kept.payments + excluded.payments
    $sql$;
    EXECUTE $sql$
      DELETE FROM payments_revenue AS kept USING (SELECT DISTINCT currency FROM (SELECT upper(currency) AS currency, amount AS amount FROM old_rows
        EXCEPT ALL SELECT upper(currency) AS currency, amount AS amount FROM new_rows) AS gone) AS k
      WHERE kept.currency = k.currency AND kept.payments = 0
    $sql$;
  ELSIF TG_OP = 'DELETE' THEN
    EXECUTE $sql$
      INSERT INTO payments_revenue AS kept (currency, amount, payments)
      SELECT currency, coalesce(sum(sign * amount), 0), sum(sign)
      FROM (SELECT -1 AS sign, * FROM (SELECT upper(currency) AS currency, amount AS amount FROM old_rows) AS gone) AS changes
      GROUP BY 1
      HAVING coalesce(sum(sign * amount), 0) <> 0 OR sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1
      ON CONFLICT (currency) DO UPDATE SET amount = kept.amount + excluded.amount, payments = kept.payments + excluded.payments
    $sql$;
    EXECUTE $sql$
      DELETE FROM payments_revenue AS kept USING (SELECT DISTINCT currency FROM (SELECT upper(currency) AS currency, amount AS amount FROM old_rows) AS gone) AS k
      WHERE kept.currency = k.currency AND kept.payments = 0
    $sql$;
  ELSE
    DELETE FROM payments_revenue;
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER payments_revenue_on_insert AFTER INSERT ON payments_ledger REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION payments_revenue_follow();
--> statement-breakpoint
CREATE TRIGGER payments_revenue_on_update AFTER UPDATE ON payments_ledger REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION payments_revenue_follow();
--> statement-breakpoint
CREATE TRIGGER payments_revenue_on_delete AFTER DELETE ON payments_ledger REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION payments_revenue_follow();
--> statement-breakpoint
CREATE TRIGGER payments_revenue_on_truncate AFTER TRUNCATE ON payments_ledger
  FOR EACH STATEMENT EXECUTE FUNCTION payments_revenue_follow();
--> statement-breakpoint
-- payments_revenue as the rows of payments_ledger say it is: what db:reconcile compares it with and rebuilds it from.
CREATE FUNCTION payments_revenue_recomputed() RETURNS SETOF payments_revenue LANGUAGE sql STABLE AS $fn$
  SELECT upper(currency), coalesce(sum(amount), 0), count(*)::int
  FROM payments_ledger
  GROUP BY 1
$fn$;
--> statement-breakpoint
-- Filled once for rows stored before it was kept.
INSERT INTO payments_revenue SELECT * FROM payments_revenue_recomputed();
--> statement-breakpoint
-- webhook_delivery_counts: kept from webhook_deliveries as its module's figures.ts declares it (generated by db:generate).
-- Statement triggers, so a bulk write costs one grouped upsert; each statement is planned with its
-- rows (EXECUTE), as a plan cached for a one-row statement may not suit a bulk load's.
CREATE FUNCTION webhook_delivery_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE $sql$
      INSERT INTO webhook_delivery_counts AS kept (provider, status, n)
      SELECT provider, status, sum(sign)
      FROM (SELECT 1 AS sign, * FROM (SELECT provider, status FROM new_rows) AS came) AS changes
      GROUP BY 1, 2
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2
      ON CONFLICT (provider, status) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
  ELSIF TG_OP = 'UPDATE' THEN
    EXECUTE $sql$
      INSERT INTO webhook_delivery_counts AS kept (provider, status, n)
      SELECT provider, status, sum(sign)
      FROM (SELECT -1 AS sign, * FROM (SELECT provider, status FROM old_rows
        EXCEPT ALL SELECT provider, status FROM new_rows) AS gone
        UNION ALL SELECT 1, * FROM (SELECT provider, status FROM new_rows
        EXCEPT ALL SELECT provider, status FROM old_rows) AS came) AS changes
      GROUP BY 1, 2
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2
      ON CONFLICT (provider, status) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
    EXECUTE $sql$
      DELETE FROM webhook_delivery_counts AS kept USING (SELECT DISTINCT provider, status FROM (SELECT provider, status FROM old_rows
        EXCEPT ALL SELECT provider, status FROM new_rows) AS gone) AS k
      WHERE kept.provider = k.provider AND kept.status = k.status AND kept.n = 0
    $sql$;
  ELSIF TG_OP = 'DELETE' THEN
    EXECUTE $sql$
      INSERT INTO webhook_delivery_counts AS kept (provider, status, n)
      SELECT provider, status, sum(sign)
      FROM (SELECT -1 AS sign, * FROM (SELECT provider, status FROM old_rows) AS gone) AS changes
      GROUP BY 1, 2
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2
      ON CONFLICT (provider, status) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
    EXECUTE $sql$
      DELETE FROM webhook_delivery_counts AS kept USING (SELECT DISTINCT provider, status FROM (SELECT provider, status FROM old_rows) AS gone) AS k
      WHERE kept.provider = k.provider AND kept.status = k.status AND kept.n = 0
    $sql$;
  ELSE
    DELETE FROM webhook_delivery_counts;
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER webhook_delivery_counts_on_insert AFTER INSERT ON webhook_deliveries REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION webhook_delivery_counts_follow();
--> statement-breakpoint
CREATE TRIGGER webhook_delivery_counts_on_update AFTER UPDATE ON webhook_deliveries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION webhook_delivery_counts_follow();
--> statement-breakpoint
CREATE TRIGGER webhook_delivery_counts_on_delete AFTER DELETE ON webhook_deliveries REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION webhook_delivery_counts_follow();
--> statement-breakpoint
CREATE TRIGGER webhook_delivery_counts_on_truncate AFTER TRUNCATE ON webhook_deliveries
  FOR EACH STATEMENT EXECUTE FUNCTION webhook_delivery_counts_follow();
--> statement-breakpoint
-- webhook_delivery_counts as the rows of webhook_deliveries say it is: what db:reconcile compares it with and rebuilds it from.
CREATE FUNCTION webhook_delivery_counts_recomputed() RETURNS SETOF webhook_delivery_counts LANGUAGE sql STABLE AS $fn$
  SELECT provider, status, count(*)::int
  FROM webhook_deliveries
  GROUP BY 1, 2
$fn$;
--> statement-breakpoint
-- Filled once for rows stored before it was kept.
INSERT INTO webhook_delivery_counts SELECT * FROM webhook_delivery_counts_recomputed();
--> statement-breakpoint
-- webhook_delivery_hours: kept from webhook_deliveries as its module's figures.ts declares it (generated by db:generate).
-- Statement triggers, so a bulk write costs one grouped upsert; each statement is planned with its
-- rows (EXECUTE), as a plan cached for a one-row statement may not suit a bulk load's.
CREATE FUNCTION webhook_delivery_hours_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE $sql$
      INSERT INTO webhook_delivery_hours AS kept (provider, hour, n)
      SELECT provider, hour, sum(sign)
      FROM (SELECT 1 AS sign, * FROM (SELECT provider, date_trunc('hour', received_at) AS hour FROM new_rows) AS came) AS changes
      GROUP BY 1, 2
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2
      ON CONFLICT (provider, hour) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
  ELSIF TG_OP = 'UPDATE' THEN
    EXECUTE $sql$
      INSERT INTO webhook_delivery_hours AS kept (provider, hour, n)
      SELECT provider, hour, sum(sign)
      FROM (SELECT -1 AS sign, * FROM (SELECT provider, date_trunc('hour', received_at) AS hour FROM old_rows
        EXCEPT ALL SELECT provider, date_trunc('hour', received_at) AS hour FROM new_rows) AS gone
        UNION ALL SELECT 1, * FROM (SELECT provider, date_trunc('hour', received_at) AS hour FROM new_rows
        EXCEPT ALL SELECT provider, date_trunc('hour', received_at) AS hour FROM old_rows) AS came) AS changes
      GROUP BY 1, 2
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2
      ON CONFLICT (provider, hour) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
    EXECUTE $sql$
      DELETE FROM webhook_delivery_hours AS kept USING (SELECT DISTINCT provider, hour FROM (SELECT provider, date_trunc('hour', received_at) AS hour FROM old_rows
        EXCEPT ALL SELECT provider, date_trunc('hour', received_at) AS hour FROM new_rows) AS gone) AS k
      WHERE kept.provider = k.provider AND kept.hour = k.hour AND kept.n = 0
    $sql$;
  ELSIF TG_OP = 'DELETE' THEN
    EXECUTE $sql$
      INSERT INTO webhook_delivery_hours AS kept (provider, hour, n)
      SELECT provider, hour, sum(sign)
      FROM (SELECT -1 AS sign, * FROM (SELECT provider, date_trunc('hour', received_at) AS hour FROM old_rows) AS gone) AS changes
      GROUP BY 1, 2
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2
      ON CONFLICT (provider, hour) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
    EXECUTE $sql$
      DELETE FROM webhook_delivery_hours AS kept USING (SELECT DISTINCT provider, hour FROM (SELECT provider, date_trunc('hour', received_at) AS hour FROM old_rows) AS gone) AS k
      WHERE kept.provider = k.provider AND kept.hour = k.hour AND kept.n = 0
    $sql$;
  ELSE
    DELETE FROM webhook_delivery_hours;
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER webhook_delivery_hours_on_insert AFTER INSERT ON webhook_deliveries REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION webhook_delivery_hours_follow();
--> statement-breakpoint
CREATE TRIGGER webhook_delivery_hours_on_update AFTER UPDATE ON webhook_deliveries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION webhook_delivery_hours_follow();
--> statement-breakpoint
CREATE TRIGGER webhook_delivery_hours_on_delete AFTER DELETE ON webhook_deliveries REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION webhook_delivery_hours_follow();
--> statement-breakpoint
CREATE TRIGGER webhook_delivery_hours_on_truncate AFTER TRUNCATE ON webhook_deliveries
  FOR EACH STATEMENT EXECUTE FUNCTION webhook_delivery_hours_follow();
--> statement-breakpoint
-- webhook_delivery_hours as the rows of webhook_deliveries say it is: what db:reconcile compares it with and rebuilds it from.
CREATE FUNCTION webhook_delivery_hours_recomputed() RETURNS SETOF webhook_delivery_hours LANGUAGE sql STABLE AS $fn$
  SELECT provider, date_trunc('hour', received_at), count(*)::int
  FROM webhook_deliveries
  GROUP BY 1, 2
$fn$;
--> statement-breakpoint
-- Filled once for rows stored before it was kept.
INSERT INTO webhook_delivery_hours SELECT * FROM webhook_delivery_hours_recomputed();
--> statement-breakpoint
-- market_intel_counts: kept from market_intel_events as its module's figures.ts declares it (generated by db:generate).
-- Statement triggers, so a bulk write costs one grouped upsert; each statement is planned with its
-- rows (EXECUTE), as a plan cached for a one-row statement may not suit a bulk load's.
CREATE FUNCTION market_intel_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE $sql$
      INSERT INTO market_intel_counts AS kept (trust_tier, source, direction, outcome, n)
      SELECT trust_tier, source, direction, outcome, sum(sign)
      FROM (SELECT 1 AS sign, * FROM (SELECT trust_tier, source, direction, CASE WHEN outcome_pct IS NULL THEN 'unscored' WHEN outcome_pct > 0 THEN 'gain' WHEN outcome_pct < 0 THEN 'loss' ELSE 'flat' END AS outcome FROM new_rows) AS came) AS changes
      GROUP BY 1, 2, 3, 4
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2, 3, 4
      ON CONFLICT (trust_tier, source, direction, outcome) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
  ELSIF TG_OP = 'UPDATE' THEN
    EXECUTE $sql$
      INSERT INTO market_intel_counts AS kept (trust_tier, source, direction, outcome, n)
      SELECT trust_tier, source, direction, outcome, sum(sign)
      FROM (SELECT -1 AS sign, * FROM (SELECT trust_tier, source, direction, CASE WHEN outcome_pct IS NULL THEN 'unscored' WHEN outcome_pct > 0 THEN 'gain' WHEN outcome_pct < 0 THEN 'loss' ELSE 'flat' END AS outcome FROM old_rows
        EXCEPT ALL SELECT trust_tier, source, direction, CASE WHEN outcome_pct IS NULL THEN 'unscored' WHEN outcome_pct > 0 THEN 'gain' WHEN outcome_pct < 0 THEN 'loss' ELSE 'flat' END AS outcome FROM new_rows) AS gone
        UNION ALL SELECT 1, * FROM (SELECT trust_tier, source, direction, CASE WHEN outcome_pct IS NULL THEN 'unscored' WHEN outcome_pct > 0 THEN 'gain' WHEN outcome_pct < 0 THEN 'loss' ELSE 'flat' END AS outcome FROM new_rows
        EXCEPT ALL SELECT trust_tier, source, direction, CASE WHEN outcome_pct IS NULL THEN 'unscored' WHEN outcome_pct > 0 THEN 'gain' WHEN outcome_pct < 0 THEN 'loss' ELSE 'flat' END AS outcome FROM old_rows) AS came) AS changes
      GROUP BY 1, 2, 3, 4
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2, 3, 4
      ON CONFLICT (trust_tier, source, direction, outcome) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
    EXECUTE $sql$
      DELETE FROM market_intel_counts AS kept USING (SELECT DISTINCT trust_tier, source, direction, outcome FROM (SELECT trust_tier, source, direction, CASE WHEN outcome_pct IS NULL THEN 'unscored' WHEN outcome_pct > 0 THEN 'gain' WHEN outcome_pct < 0 THEN 'loss' ELSE 'flat' END AS outcome FROM old_rows
        EXCEPT ALL SELECT trust_tier, source, direction, CASE WHEN outcome_pct IS NULL THEN 'unscored' WHEN outcome_pct > 0 THEN 'gain' WHEN outcome_pct < 0 THEN 'loss' ELSE 'flat' END AS outcome FROM new_rows) AS gone) AS k
      WHERE kept.trust_tier = k.trust_tier AND kept.source = k.source AND kept.direction = k.direction AND kept.outcome = k.outcome AND kept.n = 0
    $sql$;
  ELSIF TG_OP = 'DELETE' THEN
    EXECUTE $sql$
      INSERT INTO market_intel_counts AS kept (trust_tier, source, direction, outcome, n)
      SELECT trust_tier, source, direction, outcome, sum(sign)
      FROM (SELECT -1 AS sign, * FROM (SELECT trust_tier, source, direction, CASE WHEN outcome_pct IS NULL THEN 'unscored' WHEN outcome_pct > 0 THEN 'gain' WHEN outcome_pct < 0 THEN 'loss' ELSE 'flat' END AS outcome FROM old_rows) AS gone) AS changes
      GROUP BY 1, 2, 3, 4
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2, 3, 4
      ON CONFLICT (trust_tier, source, direction, outcome) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
    EXECUTE $sql$
      DELETE FROM market_intel_counts AS kept USING (SELECT DISTINCT trust_tier, source, direction, outcome FROM (SELECT trust_tier, source, direction, CASE WHEN outcome_pct IS NULL THEN 'unscored' WHEN outcome_pct > 0 THEN 'gain' WHEN outcome_pct < 0 THEN 'loss' ELSE 'flat' END AS outcome FROM old_rows) AS gone) AS k
      WHERE kept.trust_tier = k.trust_tier AND kept.source = k.source AND kept.direction = k.direction AND kept.outcome = k.outcome AND kept.n = 0
    $sql$;
  ELSE
    DELETE FROM market_intel_counts;
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER market_intel_counts_on_insert AFTER INSERT ON market_intel_events REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION market_intel_counts_follow();
--> statement-breakpoint
CREATE TRIGGER market_intel_counts_on_update AFTER UPDATE ON market_intel_events REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION market_intel_counts_follow();
--> statement-breakpoint
CREATE TRIGGER market_intel_counts_on_delete AFTER DELETE ON market_intel_events REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION market_intel_counts_follow();
--> statement-breakpoint
CREATE TRIGGER market_intel_counts_on_truncate AFTER TRUNCATE ON market_intel_events
  FOR EACH STATEMENT EXECUTE FUNCTION market_intel_counts_follow();
--> statement-breakpoint
-- market_intel_counts as the rows of market_intel_events say it is: what db:reconcile compares it with and rebuilds it from.
CREATE FUNCTION market_intel_counts_recomputed() RETURNS SETOF market_intel_counts LANGUAGE sql STABLE AS $fn$
  SELECT trust_tier, source, direction, CASE WHEN outcome_pct IS NULL THEN 'unscored' WHEN outcome_pct > 0 THEN 'gain' WHEN outcome_pct < 0 THEN 'loss' ELSE 'flat' END, count(*)::int
  FROM market_intel_events
  GROUP BY 1, 2, 3, 4
$fn$;
--> statement-breakpoint
-- Filled once for rows stored before it was kept.
INSERT INTO market_intel_counts SELECT * FROM market_intel_counts_recomputed();
--> statement-breakpoint
-- command_center_task_counts: kept from command_center_tasks as its module's figures.ts declares it (generated by db:generate).
-- Statement triggers, so a bulk write costs one grouped upsert; each statement is planned with its
-- rows (EXECUTE), as a plan cached for a one-row statement may not suit a bulk load's.
CREATE FUNCTION command_center_task_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE $sql$
      INSERT INTO command_center_task_counts AS kept (status, priority, assignee, source_type, n)
      SELECT status, priority, assignee, source_type, sum(sign)
      FROM (SELECT 1 AS sign, * FROM (SELECT status, priority, coalesce(assignee, '') AS assignee, source_type FROM new_rows) AS came) AS changes
      GROUP BY 1, 2, 3, 4
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2, 3, 4
      ON CONFLICT (status, priority, assignee, source_type) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
  ELSIF TG_OP = 'UPDATE' THEN
    EXECUTE $sql$
      INSERT INTO command_center_task_counts AS kept (status, priority, assignee, source_type, n)
      SELECT status, priority, assignee, source_type, sum(sign)
      FROM (SELECT -1 AS sign, * FROM (SELECT status, priority, coalesce(assignee, '') AS assignee, source_type FROM old_rows
        EXCEPT ALL SELECT status, priority, coalesce(assignee, '') AS assignee, source_type FROM new_rows) AS gone
        UNION ALL SELECT 1, * FROM (SELECT status, priority, coalesce(assignee, '') AS assignee, source_type FROM new_rows
        EXCEPT ALL SELECT status, priority, coalesce(assignee, '') AS assignee, source_type FROM old_rows) AS came) AS changes
      GROUP BY 1, 2, 3, 4
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2, 3, 4
      ON CONFLICT (status, priority, assignee, source_type) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
    EXECUTE $sql$
      DELETE FROM command_center_task_counts AS kept USING (SELECT DISTINCT status, priority, assignee, source_type FROM (SELECT status, priority, coalesce(assignee, '') AS assignee, source_type FROM old_rows
        EXCEPT ALL SELECT status, priority, coalesce(assignee, '') AS assignee, source_type FROM new_rows) AS gone) AS k
      WHERE kept.status = k.status AND kept.priority = k.priority AND kept.assignee = k.assignee AND kept.source_type = k.source_type AND kept.n = 0
    $sql$;
  ELSIF TG_OP = 'DELETE' THEN
    EXECUTE $sql$
      INSERT INTO command_center_task_counts AS kept (status, priority, assignee, source_type, n)
      SELECT status, priority, assignee, source_type, sum(sign)
      FROM (SELECT -1 AS sign, * FROM (SELECT status, priority, coalesce(assignee, '') AS assignee, source_type FROM old_rows) AS gone) AS changes
      GROUP BY 1, 2, 3, 4
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2, 3, 4
      ON CONFLICT (status, priority, assignee, source_type) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
    EXECUTE $sql$
      DELETE FROM command_center_task_counts AS kept USING (SELECT DISTINCT status, priority, assignee, source_type FROM (SELECT status, priority, coalesce(assignee, '') AS assignee, source_type FROM old_rows) AS gone) AS k
      WHERE kept.status = k.status AND kept.priority = k.priority AND kept.assignee = k.assignee AND kept.source_type = k.source_type AND kept.n = 0
    $sql$;
  ELSE
    DELETE FROM command_center_task_counts;
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER command_center_task_counts_on_insert AFTER INSERT ON command_center_tasks REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION command_center_task_counts_follow();
--> statement-breakpoint
CREATE TRIGGER command_center_task_counts_on_update AFTER UPDATE ON command_center_tasks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION command_center_task_counts_follow();
--> statement-breakpoint
CREATE TRIGGER command_center_task_counts_on_delete AFTER DELETE ON command_center_tasks REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION command_center_task_counts_follow();
--> statement-breakpoint
CREATE TRIGGER command_center_task_counts_on_truncate AFTER TRUNCATE ON command_center_tasks
  FOR EACH STATEMENT EXECUTE FUNCTION command_center_task_counts_follow();
--> statement-breakpoint
-- command_center_task_counts as the rows of command_center_tasks say it is: what db:reconcile compares it with and rebuilds it from.
CREATE FUNCTION command_center_task_counts_recomputed() RETURNS SETOF command_center_task_counts LANGUAGE sql STABLE AS $fn$
  SELECT status, priority, coalesce(assignee, ''), source_type, count(*)::int
  FROM command_center_tasks
  GROUP BY 1, 2, 3, 4
$fn$;
--> statement-breakpoint
-- Filled once for rows stored before it was kept.
INSERT INTO command_center_task_counts SELECT * FROM command_center_task_counts_recomputed();
--> statement-breakpoint
-- command_center_task_day_counts: kept from command_center_tasks as its module's figures.ts declares it (generated by db:generate).
-- Statement triggers, so a bulk write costs one grouped upsert; each statement is planned with its
-- rows (EXECUTE), as a plan cached for a one-row statement may not suit a bulk load's.
CREATE FUNCTION command_center_task_day_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE $sql$
      INSERT INTO command_center_task_day_counts AS kept (status, created_day, n)
      SELECT status, created_day, sum(sign)
      FROM (SELECT 1 AS sign, * FROM (SELECT status, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM new_rows) AS came) AS changes
      GROUP BY 1, 2
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2
      ON CONFLICT (status, created_day) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
  ELSIF TG_OP = 'UPDATE' THEN
    EXECUTE $sql$
      INSERT INTO command_center_task_day_counts AS kept (status, created_day, n)
      SELECT status, created_day, sum(sign)
      FROM (SELECT -1 AS sign, * FROM (SELECT status, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM old_rows
        EXCEPT ALL SELECT status, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM new_rows) AS gone
        UNION ALL SELECT 1, * FROM (SELECT status, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM new_rows
        EXCEPT ALL SELECT status, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM old_rows) AS came) AS changes
      GROUP BY 1, 2
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2
      ON CONFLICT (status, created_day) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
    EXECUTE $sql$
      DELETE FROM command_center_task_day_counts AS kept USING (SELECT DISTINCT status, created_day FROM (SELECT status, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM old_rows
        EXCEPT ALL SELECT status, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM new_rows) AS gone) AS k
      WHERE kept.status = k.status AND kept.created_day = k.created_day AND kept.n = 0
    $sql$;
  ELSIF TG_OP = 'DELETE' THEN
    EXECUTE $sql$
      INSERT INTO command_center_task_day_counts AS kept (status, created_day, n)
      SELECT status, created_day, sum(sign)
      FROM (SELECT -1 AS sign, * FROM (SELECT status, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM old_rows) AS gone) AS changes
      GROUP BY 1, 2
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2
      ON CONFLICT (status, created_day) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
    EXECUTE $sql$
      DELETE FROM command_center_task_day_counts AS kept USING (SELECT DISTINCT status, created_day FROM (SELECT status, (created_at AT TIME ZONE 'UTC')::date AS created_day FROM old_rows) AS gone) AS k
      WHERE kept.status = k.status AND kept.created_day = k.created_day AND kept.n = 0
    $sql$;
  ELSE
    DELETE FROM command_center_task_day_counts;
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER command_center_task_day_counts_on_insert AFTER INSERT ON command_center_tasks REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION command_center_task_day_counts_follow();
--> statement-breakpoint
CREATE TRIGGER command_center_task_day_counts_on_update AFTER UPDATE ON command_center_tasks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION command_center_task_day_counts_follow();
--> statement-breakpoint
CREATE TRIGGER command_center_task_day_counts_on_delete AFTER DELETE ON command_center_tasks REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION command_center_task_day_counts_follow();
--> statement-breakpoint
CREATE TRIGGER command_center_task_day_counts_on_truncate AFTER TRUNCATE ON command_center_tasks
  FOR EACH STATEMENT EXECUTE FUNCTION command_center_task_day_counts_follow();
--> statement-breakpoint
-- command_center_task_day_counts as the rows of command_center_tasks say it is: what db:reconcile compares it with and rebuilds it from.
CREATE FUNCTION command_center_task_day_counts_recomputed() RETURNS SETOF command_center_task_day_counts LANGUAGE sql STABLE AS $fn$
  SELECT status, (created_at AT TIME ZONE 'UTC')::date, count(*)::int
  FROM command_center_tasks
  GROUP BY 1, 2
$fn$;
--> statement-breakpoint
-- Filled once for rows stored before it was kept.
INSERT INTO command_center_task_day_counts SELECT * FROM command_center_task_day_counts_recomputed();
--> statement-breakpoint
-- command_center_task_assignee_day_counts: kept from command_center_tasks as its module's figures.ts declares it (generated by db:generate).
-- Statement triggers, so a bulk write costs one grouped upsert; each statement is planned with its
-- rows (EXECUTE), as a plan cached for a one-row statement may not suit a bulk load's.
CREATE FUNCTION command_center_task_assignee_day_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE $sql$
      INSERT INTO command_center_task_assignee_day_counts AS kept (assignee, created_day, status, priority, source_type, n)
      SELECT assignee, created_day, status, priority, source_type, sum(sign)
      FROM (SELECT 1 AS sign, * FROM (SELECT assignee, (created_at AT TIME ZONE 'UTC')::date AS created_day, status, priority, source_type FROM new_rows WHERE assignee IS NOT NULL) AS came) AS changes
      GROUP BY 1, 2, 3, 4, 5
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT (assignee, created_day, status, priority, source_type) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
  ELSIF TG_OP = 'UPDATE' THEN
    EXECUTE $sql$
      INSERT INTO command_center_task_assignee_day_counts AS kept (assignee, created_day, status, priority, source_type, n)
      SELECT assignee, created_day, status, priority, source_type, sum(sign)
      FROM (SELECT -1 AS sign, * FROM (SELECT assignee, (created_at AT TIME ZONE 'UTC')::date AS created_day, status, priority, source_type FROM old_rows WHERE assignee IS NOT NULL
        EXCEPT ALL SELECT assignee, (created_at AT TIME ZONE 'UTC')::date AS created_day, status, priority, source_type FROM new_rows WHERE assignee IS NOT NULL) AS gone
        UNION ALL SELECT 1, * FROM (SELECT assignee, (created_at AT TIME ZONE 'UTC')::date AS created_day, status, priority, source_type FROM new_rows WHERE assignee IS NOT NULL
        EXCEPT ALL SELECT assignee, (created_at AT TIME ZONE 'UTC')::date AS created_day, status, priority, source_type FROM old_rows WHERE assignee IS NOT NULL) AS came) AS changes
      GROUP BY 1, 2, 3, 4, 5
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT (assignee, created_day, status, priority, source_type) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
    EXECUTE $sql$
      DELETE FROM command_center_task_assignee_day_counts AS kept USING (SELECT DISTINCT assignee, created_day, status, priority, source_type FROM (SELECT assignee, (created_at AT TIME ZONE 'UTC')::date AS created_day, status, priority, source_type FROM old_rows WHERE assignee IS NOT NULL
        EXCEPT ALL SELECT assignee, (created_at AT TIME ZONE 'UTC')::date AS created_day, status, priority, source_type FROM new_rows WHERE assignee IS NOT NULL) AS gone) AS k
      WHERE kept.assignee = k.assignee AND kept.created_day = k.created_day AND kept.status = k.status AND kept.priority = k.priority AND kept.source_type = k.source_type AND kept.n = 0
    $sql$;
  ELSIF TG_OP = 'DELETE' THEN
    EXECUTE $sql$
      INSERT INTO command_center_task_assignee_day_counts AS kept (assignee, created_day, status, priority, source_type, n)
      SELECT assignee, created_day, status, priority, source_type, sum(sign)
      FROM (SELECT -1 AS sign, * FROM (SELECT assignee, (created_at AT TIME ZONE 'UTC')::date AS created_day, status, priority, source_type FROM old_rows WHERE assignee IS NOT NULL) AS gone) AS changes
      GROUP BY 1, 2, 3, 4, 5
      HAVING sum(sign) <> 0
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY 1, 2, 3, 4, 5
      ON CONFLICT (assignee, created_day, status, priority, source_type) DO UPDATE SET n = kept.n + excluded.n
    $sql$;
    EXECUTE $sql$
      DELETE FROM command_center_task_assignee_day_counts AS kept USING (SELECT DISTINCT assignee, created_day, status, priority, source_type FROM (SELECT assignee, (created_at AT TIME ZONE 'UTC')::date AS created_day, status, priority, source_type FROM old_rows WHERE assignee IS NOT NULL) AS gone) AS k
      WHERE kept.assignee = k.assignee AND kept.created_day = k.created_day AND kept.status = k.status AND kept.priority = k.priority AND kept.source_type = k.source_type AND kept.n = 0
    $sql$;
  ELSE
    DELETE FROM command_center_task_assignee_day_counts;
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER command_center_task_assignee_day_counts_on_insert AFTER INSERT ON command_center_tasks REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION command_center_task_assignee_day_counts_follow();
--> statement-breakpoint
CREATE TRIGGER command_center_task_assignee_day_counts_on_update AFTER UPDATE ON command_center_tasks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION command_center_task_assignee_day_counts_follow();
--> statement-breakpoint
CREATE TRIGGER command_center_task_assignee_day_counts_on_delete AFTER DELETE ON command_center_tasks REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION command_center_task_assignee_day_counts_follow();
--> statement-breakpoint
CREATE TRIGGER command_center_task_assignee_day_counts_on_truncate AFTER TRUNCATE ON command_center_tasks
  FOR EACH STATEMENT EXECUTE FUNCTION command_center_task_assignee_day_counts_follow();
--> statement-breakpoint
-- command_center_task_assignee_day_counts as the rows of command_center_tasks say it is: what db:reconcile compares it with and rebuilds it from.
CREATE FUNCTION command_center_task_assignee_day_counts_recomputed() RETURNS SETOF command_center_task_assignee_day_counts LANGUAGE sql STABLE AS $fn$
  SELECT assignee, (created_at AT TIME ZONE 'UTC')::date, status, priority, source_type, count(*)::int
  FROM command_center_tasks WHERE assignee IS NOT NULL
  GROUP BY 1, 2, 3, 4, 5
$fn$;
--> statement-breakpoint
-- Filled once for rows stored before it was kept.
INSERT INTO command_center_task_assignee_day_counts SELECT * FROM command_center_task_assignee_day_counts_recomputed();
