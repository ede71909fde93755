// Trading strategies as this service keeps them: where each stands (draft → paper → live → retired)
// and the paper-trading figures the autopilot judges them by. Every status change is a transition row.
import { type SQL, sql } from 'drizzle-orm';
import {
  check,
  index,
  integer,
  jsonb,
  numeric,
  type PgColumn,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import { oneOf } from '../../platform/db/checks.ts';
import { users } from '../users/users.tables.ts';
import type { MetricsState } from './metrics-fold.domain.ts';
import { PROMOTION_RULES, STRATEGY_STATUSES, type StrategyMetrics, type StrategyStatus } from './strategies.domain.ts';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * A strategy in paper whose figures meet every figure rule of PROMOTION_RULES (the days in paper aside,
 * which move with the clock): promotionVerdict's figure rules in SQL, a figure that is not a JSON number
 * failing its rule. The partial index below holds only these rows and the autopilot asks with this very
 * predicate, so it reads the strategies it can promote, not every one in paper (decision 851).
 */
export function promotableFigures(t: { status: PgColumn; metrics: PgColumn }): SQL {
  const rules = PROMOTION_RULES;
  // CASE: the cast is never tried on a value that is not a number (AND does not promise an order).
  const figure = (name: string) =>
    sql`(CASE WHEN jsonb_typeof(${t.metrics} -> ${sql.raw(`'${name}'`)}) = 'number'
      THEN (${t.metrics} ->> ${sql.raw(`'${name}'`)})::numeric END)`;
  return sql`${t.status} = 'paper'
    AND ${figure('paper_trades')} >= ${sql.raw(String(rules.minPaperTrades))}
    AND ${figure('return_pct')} > ${sql.raw(String(rules.minReturnPct))}
    AND abs(${figure('max_drawdown_pct')}) <= ${sql.raw(String(rules.maxDrawdownPct))}
    AND ${figure('win_rate')} >= ${sql.raw(String(rules.minWinRate))}`;
}

export const strategies = pgTable(
  'strategies',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    ownerUserId: uuid('owner_user_id').references(() => users.id, { onDelete: 'set null' }),
    status: text('status').$type<StrategyStatus>().notNull().default('draft'),
    paperStartedAt: at('paper_started_at'),
    liveStartedAt: at('live_started_at'),
    metrics: jsonb('metrics').$type<StrategyMetrics>().notNull().default({}),
    /**
     * What the figures were computed from, to add new fills to (decision 850), its open lots stored apart
     * in strategy_lots (decision 930); null: from all the fills next time.
     */
    metricsState: jsonb('metrics_state').$type<MetricsState>(),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('strategies_created_idx').on(t.createdAt.desc(), t.id.desc()),
    index('strategies_status_idx').on(t.status, t.paperStartedAt),
    index('strategies_owner_idx').on(t.ownerUserId, t.createdAt.desc(), t.id.desc()),
    index('strategies_promotable_idx').on(t.paperStartedAt, t.id).where(promotableFigures(t)),
    check('strategies_status_check', oneOf(t.status, STRATEGY_STATUSES)),
  ],
);

/**
 * How many strategies are in each status, kept by the database whatever writes the strategies
 * (strategies.routines.sql, decision 931): what the autopilot's `evaluated` reads instead of counting
 * the strategies in paper. `db:reconcile` checks and rebuilds it.
 */
export const strategyStatusCounts = pgTable(
  'strategy_status_counts',
  {
    status: text('status').$type<StrategyStatus>().primaryKey(),
    n: integer('n').notNull(),
  },
  (t) => [check('strategy_status_counts_status_check', oneOf(t.status, STRATEGY_STATUSES))],
);

export const strategyTransitions = pgTable(
  'strategy_transitions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    strategyId: uuid('strategy_id')
      .notNull()
      .references(() => strategies.id, { onDelete: 'cascade' }),
    fromStatus: text('from_status').$type<StrategyStatus>().notNull(),
    toStatus: text('to_status').$type<StrategyStatus>().notNull(),
    at: at('at').notNull(),
    reason: text('reason').notNull(),
  },
  (t) => [
    index('strategy_transitions_at_idx').on(t.at.desc()),
    index('strategy_transitions_strategy_idx').on(t.strategyId, t.at.desc()),
    check('strategy_transitions_from_status_check', oneOf(t.fromStatus, STRATEGY_STATUSES)),
    check('strategy_transitions_to_status_check', oneOf(t.toStatus, STRATEGY_STATUSES)),
  ],
);

const amount = (name: string) => numeric(name, { precision: 38, scale: 18 });

/** The paper fills of a strategy's orders, as the orders module reports them; its figures are computed from these. */
export const strategyFills = pgTable(
  'strategy_fills',
  {
    strategyId: uuid('strategy_id')
      .notNull()
      .references(() => strategies.id, { onDelete: 'cascade' }),
    /** The venue's trade id (`paper:<uuid>` for paper fills): a fill reported twice is stored once. */
    tradeId: text('trade_id').notNull(),
    /** The order's client order id: one sell order's fills make one round trip. */
    orderId: text('order_id').notNull(),
    symbol: text('symbol').notNull(),
    side: text('side').$type<'buy' | 'sell'>().notNull(),
    price: amount('price').notNull(),
    amount: amount('amount').notNull(),
    fee: amount('fee').notNull(),
    feeCurrency: text('fee_currency'),
    at: at('at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.strategyId, t.tradeId] }),
    index('strategy_fills_at_idx').on(t.strategyId, t.at),
    index('strategy_fills_order_idx').on(t.strategyId, t.orderId),
    check('strategy_fills_side_check', oneOf(t.side, ['buy', 'sell'])),
  ],
);

/**
 * A strategy's open lots (decision 930), numbered per symbol from the oldest (MetricsState.numbers): a
 * sell reads them from the oldest down the key and closes them there, so a fill costs the lots it
 * closes, not every lot open. Exact decimals (numeric without a scale), as the figures are computed.
 */
export const strategyLots = pgTable(
  'strategy_lots',
  {
    strategyId: uuid('strategy_id')
      .notNull()
      .references(() => strategies.id, { onDelete: 'cascade' }),
    symbol: text('symbol').notNull(),
    seq: integer('seq').notNull(),
    /** Units left in the lot. */
    amount: numeric('amount').notNull(),
    /** What those units cost, fees included. */
    cost: numeric('cost').notNull(),
  },
  (t) => [primaryKey({ columns: [t.strategyId, t.symbol, t.seq] })],
);
