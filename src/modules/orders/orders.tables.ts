// The orders module's tables: each order as the state machine keeps it, and its fills, stored once per
// venue trade id. The order row (with its client order id) is committed before anything is sent.
import { sql } from 'drizzle-orm';
import {
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
import { users } from '../users/users.tables.ts';
import {
  ORDER_MODES,
  ORDER_SIDES,
  ORDER_STATUSES,
  ORDER_TYPES,
  TIME_IN_FORCE,
  type OrderStatus,
} from './orders.domain.ts';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const decimal = (name: string) => numeric(name, { precision: 38, scale: 18 });

export const orders = pgTable(
  'orders',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    clientOrderId: text('client_order_id').notNull(),
    exchange: text('exchange').notNull(),
    symbol: text('symbol').notNull(),
    side: text('side').$type<(typeof ORDER_SIDES)[number]>().notNull(),
    type: text('type').$type<(typeof ORDER_TYPES)[number]>().notNull(),
    timeInForce: text('time_in_force').$type<(typeof TIME_IN_FORCE)[number]>().notNull(),
    mode: text('mode').$type<(typeof ORDER_MODES)[number]>().notNull(),
    amount: decimal('amount').notNull(),
    price: decimal('price'),
    status: text('status').$type<OrderStatus>().notNull(),
    filled: decimal('filled').notNull().default('0'),
    cost: decimal('cost').notNull().default('0'),
    fee: decimal('fee').notNull().default('0'),
    feeCurrency: text('fee_currency'),
    averagePrice: decimal('average_price'),
    venueOrderId: text('venue_order_id'),
    credentialId: uuid('credential_id'),
    strategyId: uuid('strategy_id'),
    source: text('source').notNull().default('api'),
    /** The signal hook whose alert placed it (source `signal`); no foreign key: the hook may go, its orders stay. */
    signalHookId: uuid('signal_hook_id'),
    reason: text('reason'),
    idempotencyKey: text('idempotency_key'),
    /** SHA-256 of the request body the idempotency key first came with. */
    requestHash: text('request_hash'),
    /** When the sender claimed it (pending → unknown) just before the request left. */
    sentAt: at('sent_at'),
    /** Whether the state machine still has to bring it to the venue's state (not final). */
    notFinal: boolean('not_final').notNull().default(true),
    createdAt: at('created_at').notNull(),
    updatedAt: at('updated_at').notNull(),
    /** When a reconcile pass last looked it up (decision 1300): the pass takes the least recently looked up. */
    checkedAt: at('checked_at'),
  },
  (t) => [
    uniqueIndex('orders_client_order_id_key').on(t.exchange, t.clientOrderId),
    uniqueIndex('orders_idempotency_key').on(t.userId, t.idempotencyKey).where(sql`${t.idempotencyKey} IS NOT NULL`),
    index('orders_user_created_idx').on(t.userId, t.createdAt.desc(), t.id.desc()),
    // A user's orders of one status, newest first: the list of one status and its total (decision 1440).
    index('orders_user_status_idx').on(t.userId, t.status, t.createdAt.desc(), t.id.desc()),
    index('orders_not_final_idx').on(t.mode, t.checkedAt).where(sql`${t.notFinal}`),
    // A user's orders not final: the gate counts them on every order, cancel-all and a halt list them. Without
    // it both read every open order of the platform (decision 1420).
    index('orders_user_not_final_idx').on(t.userId, t.createdAt).where(sql`${t.notFinal}`),
    check('orders_status_check', oneOf(t.status, ORDER_STATUSES)),
    check('orders_side_check', oneOf(t.side, ORDER_SIDES)),
    check('orders_type_check', oneOf(t.type, ORDER_TYPES)),
    check('orders_tif_check', oneOf(t.timeInForce, TIME_IN_FORCE)),
    check('orders_mode_check', oneOf(t.mode, ORDER_MODES)),
  ],
);

export const orderFills = pgTable(
  'order_fills',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orderId: uuid('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    /** The venue's trade id: the exchange trade's `exchange_trade_id`. */
    tradeId: text('trade_id').notNull(),
    price: decimal('price').notNull(),
    amount: decimal('amount').notNull(),
    fee: decimal('fee').notNull(),
    feeCurrency: text('fee_currency'),
    maker: boolean('maker').notNull().default(false),
    at: at('at').notNull(),
  },
  (t) => [uniqueIndex('order_fills_trade_key').on(t.orderId, t.tradeId)],
);

/**
 * A daily loss check owed (decision 1030): written with a fill, in the fill's own statement or transaction, for
 * a user with a daily loss limit in force; deleted by the check that weighed it (its version, `xmin`, unchanged
 * since the check read the fills). What a process killed before its check leaves, the reconcile pass settles.
 */
export const dailyLossChecksOwed = pgTable(
  'daily_loss_checks_owed',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    mode: text('mode').$type<(typeof ORDER_MODES)[number]>().notNull(),
    /** When the first fill not yet weighed was stored. */
    since: at('since').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.mode] }),
    check('daily_loss_checks_owed_mode_check', oneOf(t.mode, ORDER_MODES)),
  ],
);
