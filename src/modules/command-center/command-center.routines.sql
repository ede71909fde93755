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
