// The command center's own tables: the task board (tasks, their blockers and comments), the market
// intel feed and the agent activity feed. Private to this module; others use its services.
import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import { TASK_PRIORITIES, TASK_STATUSES } from './tasks.schemas.ts';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const commandCenterTasks = pgTable(
  'command_center_tasks',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    title: text('title').notNull(),
    description: text('description'),
    /** todo | in_progress | blocked | in_review | done | cancelled */
    status: text('status').notNull().default('todo'),
    /** critical | high | medium | low */
    priority: text('priority').notNull().default('medium'),
    assignee: text('assignee'),
    repo: text('repo').notNull(),
    /** human | agent | system | webhook */
    sourceType: text('source_type').notNull().default('human'),
    sourceId: text('source_id'),
    goalId: text('goal_id'),
    parentTaskId: uuid('parent_task_id').references((): AnyPgColumn => commandCenterTasks.id, {
      onDelete: 'set null',
    }),
    result: text('result'),
    createdBy: uuid('created_by'),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
    /** Set when the task reaches done or cancelled, cleared when it is reopened. */
    completedAt: at('completed_at'),
  },
  (t) => [
    index('command_center_tasks_created_idx').on(t.createdAt.desc(), t.id.desc()),
    // A status's or a priority's tasks in the board's date order, an index of their own for each value of
    // the closed set, so that a page of one value reads its own tasks whether they are few or all old
    // (decisions 1400 and 1450); the page writes its value into its text, which picks the index.
    ...TASK_STATUSES.map((status) =>
      index(`command_center_tasks_${status}_idx`)
        .on(t.createdAt.desc(), t.id.desc())
        .where(sql`${t.status} = ${sql.raw(`'${status}'`)}`),
    ),
    ...TASK_PRIORITIES.map((priority) =>
      index(`command_center_tasks_${priority}_idx`)
        .on(t.createdAt.desc(), t.id.desc())
        .where(sql`${t.priority} = ${sql.raw(`'${priority}'`)}`),
    ),
    index('command_center_tasks_assignee_idx').on(t.assignee, t.createdAt.desc(), t.id.desc()),
    index('command_center_tasks_parent_idx').on(t.parentTaskId),
    index('command_center_tasks_source_idx').on(t.sourceType, t.sourceId),
  ],
);

/** Edges "task is blocked by blocker"; the foreign keys keep every reference pointing at a task. */
export const commandCenterTaskBlockers = pgTable(
  'command_center_task_blockers',
  {
    taskId: uuid('task_id')
      .notNull()
      .references(() => commandCenterTasks.id, { onDelete: 'cascade' }),
    blockerId: uuid('blocker_id')
      .notNull()
      .references(() => commandCenterTasks.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ columns: [t.taskId, t.blockerId] }),
    index('command_center_task_blockers_blocker_idx').on(t.blockerId),
  ],
);

export const commandCenterTaskComments = pgTable(
  'command_center_task_comments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    taskId: uuid('task_id')
      .notNull()
      .references(() => commandCenterTasks.id, { onDelete: 'cascade' }),
    body: text('body').notNull(),
    authorId: uuid('author_id'),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [index('command_center_task_comments_task_idx').on(t.taskId, t.createdAt)],
);

export const marketIntelEvents = pgTable(
  'market_intel_events',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    eventType: text('event_type').notNull(),
    asset: text('asset').notNull(),
    symbol: text('symbol').notNull(),
    /** bullish | bearish | long | short | up | down */
    direction: text('direction').notNull(),
    source: text('source').notNull(),
    /** verified | standard | quarantined */
    trustTier: text('trust_tier').notNull().default('standard'),
    // A score and a percentage move, not amounts: doubles are exact enough and keep JSON numbers.
    strength: doublePrecision('strength').notNull(),
    evidence: jsonb('evidence').$type<Record<string, unknown>>().notNull().default({}),
    rawNote: text('raw_note').notNull().default(''),
    detectedAt: at('detected_at').notNull(),
    expiresAt: at('expires_at'),
    outcomePct: doublePrecision('outcome_pct'),
    scoredAt: at('scored_at'),
    /** Runs in which the venue could not price the event (symbol not listed, no candle); given up after a few. */
    scoringAttempts: integer('scoring_attempts').notNull().default(0),
    /** When the scoring job last tried and failed to score it; events never tried go first. */
    scoringAttemptedAt: at('scoring_attempted_at'),
    /** Why that attempt failed. */
    scoringError: text('scoring_error'),
    createdBy: uuid('created_by'),
    createdAt: at('created_at').notNull().defaultNow(),
    /**
     * The event as the feed's JSON text, written by the database as the row is written or changed,
     * whatever writes it (command-center.routines.sql): a page of the feed is then its rows' texts
     * joined (decision 190). Null only where rows were written with triggers off; the feed writes those.
     */
    wire: text('wire'),
  },
  (t) => [
    index('market_intel_events_detected_idx').on(t.detectedAt.desc(), t.id.desc()),
    index('market_intel_events_source_idx').on(t.source),
    // The active feed: events with an explicit horizon still ahead (the others are found by detection).
    index('market_intel_events_expires_idx').on(t.expiresAt).where(sql`expires_at IS NOT NULL`),
    // The scoring job's queue is indexed in command-center.routines.sql, by the database's
    // intel_horizon() defined there.
  ],
);

export const agentActivityEvents = pgTable(
  'agent_activity_events',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    agentId: text('agent_id').notNull(),
    agentName: text('agent_name'),
    kind: text('kind').notNull(),
    rationale: text('rationale').notNull().default(''),
    action: jsonb('action').$type<Record<string, unknown>>().notNull().default({}),
    createdBy: uuid('created_by'),
    createdAt: at('created_at').notNull().defaultNow(),
    /**
     * The event as the feed's JSON text, written by the database as the row is written, whatever
     * writes it (command-center.routines.sql): a page of the feed is then its rows' texts joined
     * (decision 188). Null only where rows were written with triggers off; the feed writes those.
     */
    wire: text('wire'),
  },
  (t) => [
    index('agent_activity_events_created_idx').on(t.createdAt.desc(), t.id.desc()),
    index('agent_activity_events_agent_idx').on(t.agentId, t.createdAt.desc()),
  ],
);

/**
 * Intel events per trust tier, source, direction and outcome (`gain`, `loss`, `flat`, `unscored`), kept
 * by the database (command-center.figures.ts, docs/decisions/124): the feed's outcome summary.
 */
export const marketIntelCounts = pgTable(
  'market_intel_counts',
  {
    trustTier: text('trust_tier').notNull(),
    source: text('source').notNull(),
    direction: text('direction').notNull(),
    outcome: text('outcome').notNull(),
    n: integer('n').notNull(),
  },
  (t) => [primaryKey({ columns: [t.trustTier, t.source, t.direction, t.outcome] })],
);

/**
 * Tasks per status, priority, assignee ('' for none) and source type, kept by the database
 * (command-center.figures.ts, docs/decisions/124): the board's totals under any filter.
 */
export const commandCenterTaskCounts = pgTable(
  'command_center_task_counts',
  {
    status: text('status').notNull(),
    priority: text('priority').notNull(),
    assignee: text('assignee').notNull(),
    sourceType: text('source_type').notNull(),
    n: integer('n').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.status, t.priority, t.assignee, t.sourceType] }),
    // An assignee's total reads its own counts (at most one per status, priority and source), not every
    // assignee's: the key leads with the status (decision 1500). The counts change only `n`, so their
    // updates stay heap-only.
    index('command_center_task_counts_assignee_idx').on(t.assignee),
  ],
);

/**
 * Tasks per status and UTC day of creation, kept by the database like the counts above
 * (command-center.figures.ts, decision 195): where a deep page of the board starts.
 */
export const commandCenterTaskDayCounts = pgTable(
  'command_center_task_day_counts',
  {
    status: text('status').notNull(),
    createdDay: date('created_day', { mode: 'string' }).notNull(),
    n: integer('n').notNull(),
  },
  (t) => [primaryKey({ columns: [t.status, t.createdDay] })],
);

/**
 * Assigned tasks per assignee, UTC day of creation, status, priority and source type, kept by the
 * database like the counts above (command-center.figures.ts, decision 1470): the days that hold a page of
 * one assignee's tasks, and its total, under any other filter with it.
 */
export const commandCenterTaskAssigneeDayCounts = pgTable(
  'command_center_task_assignee_day_counts',
  {
    assignee: text('assignee').notNull(),
    createdDay: date('created_day', { mode: 'string' }).notNull(),
    status: text('status').notNull(),
    priority: text('priority').notNull(),
    sourceType: text('source_type').notNull(),
    n: integer('n').notNull(),
  },
  (t) => [primaryKey({ columns: [t.assignee, t.createdDay, t.status, t.priority, t.sourceType] })],
);
