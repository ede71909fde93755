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
