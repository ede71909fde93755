// The paper engine's own rows (docs/decisions/215): each user's paper account and its balances, the
// orders it holds by client order id, and their fills. Nothing here is a venue's; the orders module
// keeps its own order rows and reads these through the engine's `lookup`.
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  index,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { oneOf } from '../../platform/db/checks.ts';
import type { OrderSide, OrderType, TimeInForce, VenueOrderStatus } from '../../platform/order-venue.ts';
import { users } from '../users/users.tables.ts';
import { ORDER_SIDES, ORDER_TYPES, PAPER_STATUSES, TIMES_IN_FORCE } from './paper.domain.ts';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const amount = (name: string) => numeric(name, { precision: 38, scale: 18 });

/** One row per user with a paper account; every engine change of that user locks it first. */
export const paperAccounts = pgTable('paper_accounts', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  createdAt: at('created_at').notNull(),
  resetAt: at('reset_at'),
});

export const paperBalances = pgTable(
  'paper_balances',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => paperAccounts.userId, { onDelete: 'cascade' }),
    asset: text('asset').notNull(),
    free: amount('free').notNull(),
    locked: amount('locked').notNull(),
    updatedAt: at('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.asset] }),
    check('paper_balances_free_check', sql`${t.free} >= 0`),
    check('paper_balances_locked_check', sql`${t.locked} >= 0`),
  ],
);

export const paperOrders = pgTable(
  'paper_orders',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => paperAccounts.userId, { onDelete: 'cascade' }),
    clientOrderId: text('client_order_id').notNull(),
    exchange: text('exchange').notNull(),
    /** ccxt's unified symbol (BTC/USDT) and the venue's (BTCUSDT), which the price stream names. */
    symbol: text('symbol').notNull(),
    venueSymbol: text('venue_symbol').notNull(),
    base: text('base').notNull(),
    quote: text('quote').notNull(),
    side: text('side').$type<OrderSide>().notNull(),
    type: text('type').$type<OrderType>().notNull(),
    timeInForce: text('time_in_force').$type<TimeInForce>().notNull(),
    amount: amount('amount').notNull(),
    price: amount('price'),
    filled: amount('filled').notNull(),
    status: text('status').$type<VenueOrderStatus>().notNull(),
    /** The maker fee rate a resting remainder fills with, fixed when it was placed. */
    makerFee: amount('maker_fee').notNull(),
    reason: text('reason'),
    createdAt: at('created_at').notNull(),
    updatedAt: at('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('paper_orders_client_order_idx').on(t.userId, t.clientOrderId),
    // The resting orders a price tick may fill: few, found by symbol.
    index('paper_orders_resting_idx').on(t.venueSymbol).where(sql`${t.status} IN ('open', 'partially_filled')`),
    check('paper_orders_status_check', oneOf(t.status, PAPER_STATUSES)),
    check('paper_orders_side_check', oneOf(t.side, ORDER_SIDES)),
    check('paper_orders_type_check', oneOf(t.type, ORDER_TYPES)),
    check('paper_orders_time_in_force_check', oneOf(t.timeInForce, TIMES_IN_FORCE)),
  ],
);

export const paperFills = pgTable(
  'paper_fills',
  {
    /** `paper:<uuid>`: the trade id the orders module records the fill under. */
    tradeId: text('trade_id').primaryKey(),
    orderId: uuid('order_id')
      .notNull()
      .references(() => paperOrders.id, { onDelete: 'cascade' }),
    price: amount('price').notNull(),
    amount: amount('amount').notNull(),
    fee: amount('fee').notNull(),
    feeCurrency: text('fee_currency').notNull(),
    maker: boolean('maker').notNull(),
    at: at('at').notNull(),
    /** Insertion order: an order's fills are answered in the order they were made (the ids are random). */
    seq: bigint('seq', { mode: 'number' }).generatedAlwaysAsIdentity(),
  },
  (t) => [index('paper_fills_order_idx').on(t.orderId, t.seq)],
);
