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
