// The command center's figures the database keeps: declared here, their triggers, recomputation and
// first fill generated into the routines migration by db:generate (decision 240).
import { count, keptFigures } from '../../platform/db/kept-figures.ts';

/** Intel events per trust tier, source, direction and outcome: the feed's summary (decision 124). */
export const MARKET_INTEL_COUNTS = keptFigures({
  table: 'market_intel_counts',
  source: 'market_intel_events',
  key: {
    trust_tier: 'trust_tier',
    source: 'source',
    direction: 'direction',
    outcome:
      "CASE WHEN outcome_pct IS NULL THEN 'unscored' WHEN outcome_pct > 0 THEN 'gain' " +
      "WHEN outcome_pct < 0 THEN 'loss' ELSE 'flat' END",
  },
  figures: { n: count() },
});

/** Tasks per status, priority, assignee ('' for none) and source type: the board's totals under any filter. */
export const TASK_COUNTS = keptFigures({
  table: 'command_center_task_counts',
  source: 'command_center_tasks',
  key: { status: 'status', priority: 'priority', assignee: "coalesce(assignee, '')", source_type: 'source_type' },
  figures: { n: count() },
});

/** Tasks per status and UTC day of creation, where a deep page of the board starts (decision 195). */
export const TASK_DAY_COUNTS = keptFigures({
  table: 'command_center_task_day_counts',
  source: 'command_center_tasks',
  key: { status: 'status', created_day: "(created_at AT TIME ZONE 'UTC')::date" },
  figures: { n: count() },
});

/**
 * Assigned tasks per assignee, status, priority, source type and UTC day of creation: the days that hold
 * a page of one assignee's tasks (decision 1470), under any other filter with it.
 */
export const TASK_ASSIGNEE_DAY_COUNTS = keptFigures({
  table: 'command_center_task_assignee_day_counts',
  source: 'command_center_tasks',
  where: 'assignee IS NOT NULL',
  key: {
    assignee: 'assignee',
    created_day: "(created_at AT TIME ZONE 'UTC')::date",
    status: 'status',
    priority: 'priority',
    source_type: 'source_type',
  },
  figures: { n: count() },
});
