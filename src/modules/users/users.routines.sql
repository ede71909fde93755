-- user_counts follows users, whatever writes them (docs/decisions/124): statement triggers add the
-- statement's rows by status, role, tier and month of creation as signed deltas. An update counts
-- only when it moves an account between those (a sign-in's last_login does not), so most updates of
-- users write nothing here.
CREATE FUNCTION user_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  changes text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT 1 AS sign, n.status, n.role, n.subscription_tier, n.created_at FROM new_users n'
    WHEN 'DELETE' THEN 'SELECT -1 AS sign, o.status, o.role, o.subscription_tier, o.created_at FROM old_users o'
    ELSE 'SELECT c.* FROM old_users o JOIN new_users n USING (id)
            CROSS JOIN LATERAL (SELECT -1 AS sign, o.status, o.role, o.subscription_tier, o.created_at
                                UNION ALL SELECT 1, n.status, n.role, n.subscription_tier, n.created_at) AS c
          WHERE (o.status, o.role, o.subscription_tier, o.created_at) IS DISTINCT FROM (n.status, n.role, n.subscription_tier, n.created_at)'
  END;
BEGIN
  EXECUTE format($sql$
    WITH deltas AS (
      SELECT status, role, subscription_tier, date_trunc('month', created_at AT TIME ZONE 'UTC')::date AS created_month, sum(sign) AS users
      FROM (%s) AS changes
      GROUP BY 1, 2, 3, 4
      HAVING sum(sign) <> 0
    )
    INSERT INTO user_counts AS c (status, role, subscription_tier, created_month, users)
    SELECT status, role, subscription_tier, created_month, users FROM deltas
    ON CONFLICT (status, role, subscription_tier, created_month) DO UPDATE SET users = c.users + excluded.users
  $sql$, changes);
  IF TG_OP <> 'INSERT' THEN
    DELETE FROM user_counts WHERE users = 0;
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER user_counts_on_insert AFTER INSERT ON users
  REFERENCING NEW TABLE AS new_users FOR EACH STATEMENT EXECUTE FUNCTION user_counts_follow();
--> statement-breakpoint
CREATE TRIGGER user_counts_on_update AFTER UPDATE ON users
  REFERENCING OLD TABLE AS old_users NEW TABLE AS new_users FOR EACH STATEMENT EXECUTE FUNCTION user_counts_follow();
--> statement-breakpoint
CREATE TRIGGER user_counts_on_delete AFTER DELETE ON users
  REFERENCING OLD TABLE AS old_users FOR EACH STATEMENT EXECUTE FUNCTION user_counts_follow();
--> statement-breakpoint
CREATE FUNCTION user_counts_clear() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  DELETE FROM user_counts;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER user_counts_on_truncate AFTER TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION user_counts_clear();
--> statement-breakpoint
-- The counts as the accounts say they are: what db:reconcile compares user_counts with and rebuilds
-- it from, and what fills it once here for accounts stored before it existed.
CREATE FUNCTION user_counts_recomputed() RETURNS SETOF user_counts LANGUAGE sql STABLE AS $fn$
  SELECT status, role, subscription_tier, date_trunc('month', created_at AT TIME ZONE 'UTC')::date, count(*)::int
  FROM users
  GROUP BY 1, 2, 3, 4
$fn$;
--> statement-breakpoint
INSERT INTO user_counts SELECT * FROM user_counts_recomputed();
