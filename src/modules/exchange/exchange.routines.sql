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
