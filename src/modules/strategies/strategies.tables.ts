// Trading strategies as this service keeps them: where each stands (draft → paper → live → retired)
// and the paper-trading figures the autopilot judges them by. Every status change is a transition row.
import { index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from '../users/users.tables.ts';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Paper-trading figures, written by whatever runs the paper trading; read by the autopilot. */
export interface StrategyMetrics {
  paper_trades?: number;
  /** Share of winning paper trades, 0..1. */
  win_rate?: number;
  /** Return of the paper account since paper_started_at, in percent. */
  return_pct?: number;
  /** Largest peak-to-trough fall of the paper account, in percent (positive number). */
  max_drawdown_pct?: number;
}

export const strategies = pgTable(
  'strategies',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    ownerUserId: uuid('owner_user_id').references(() => users.id, { onDelete: 'set null' }),
    /** draft | paper | live | retired */
    status: text('status').notNull().default('draft'),
    paperStartedAt: at('paper_started_at'),
    liveStartedAt: at('live_started_at'),
    metrics: jsonb('metrics').$type<StrategyMetrics>().notNull().default({}),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('strategies_created_idx').on(t.createdAt.desc(), t.id.desc()),
    index('strategies_status_idx').on(t.status, t.paperStartedAt),
  ],
);

export const strategyTransitions = pgTable(
  'strategy_transitions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    strategyId: uuid('strategy_id')
      .notNull()
      .references(() => strategies.id, { onDelete: 'cascade' }),
    fromStatus: text('from_status').notNull(),
    toStatus: text('to_status').notNull(),
    at: at('at').notNull(),
    reason: text('reason').notNull(),
  },
  (t) => [index('strategy_transitions_at_idx').on(t.at.desc()), index('strategy_transitions_strategy_idx').on(t.strategyId, t.at.desc())],
);
