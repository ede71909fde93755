// Tables private to the exchange module: users' venue credentials (sealed), balance snapshots and
// the trades synced from venues. Amounts are exact numerics, never floats.
import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
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
import { VALIDATION_STATUSES, type ValidationStatus } from './credentials.domain.ts';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const amount = (name: string) => numeric(name, { precision: 38, scale: 18 });

export const exchangeCredentials = pgTable(
  'exchange_credentials',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    exchangeName: text('exchange_name').notNull(),
    credentialName: text('credential_name').notNull(),
    /** Secret-box ciphertexts; the plaintexts exist only in memory for a venue call. */
    apiKeySealed: text('api_key_sealed').notNull(),
    apiSecretSealed: text('api_secret_sealed').notNull(),
    apiPassphraseSealed: text('api_passphrase_sealed'),
    /** Computed once at write time so reads never open the key. */
    apiKeyMasked: text('api_key_masked').notNull(),
    permissions: text('permissions').array().notNull().default(sql`'{}'::text[]`),
    ipWhitelist: text('ip_whitelist').array().notNull().default(sql`'{}'::text[]`),
    exchangeMetadata: jsonb('exchange_metadata').$type<Record<string, unknown>>().notNull().default({}),
    isActive: boolean('is_active').notNull().default(true),
    lastUsed: at('last_used'),
    lastValidation: at('last_validation'),
    validationStatus: text('validation_status').$type<ValidationStatus>().notNull().default('pending'),
    validationError: text('validation_error'),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('exchange_credentials_name_key').on(t.userId, t.exchangeName, t.credentialName),
    index('exchange_credentials_user_idx').on(t.userId, t.exchangeName),
    check('exchange_credentials_validation_status_check', oneOf(t.validationStatus, VALIDATION_STATUSES)),
  ],
);

/** One row per balance sync: the snapshot is the set of balance rows of the latest successful sync. */
export const exchangeBalanceSyncs = pgTable(
  'exchange_balance_syncs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    exchange: text('exchange').notNull(),
    credentialId: uuid('credential_id').references(() => exchangeCredentials.id, { onDelete: 'set null' }),
    currenciesSynced: integer('currencies_synced').notNull(),
    syncedAt: at('synced_at').notNull(),
  },
  (t) => [
    // The latest sync per user, venue and credential is the first entry of its group (DISTINCT ON).
    index('exchange_balance_syncs_latest_idx').on(t.userId, t.exchange, t.credentialId, t.syncedAt.desc()),
    // A credential's syncs, set apart when it is deleted (decision 1380).
    index('exchange_balance_syncs_credential_idx').on(t.credentialId),
  ],
);

export const exchangeBalances = pgTable(
  'exchange_balances',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    syncId: uuid('sync_id')
      .notNull()
      .references(() => exchangeBalanceSyncs.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    exchange: text('exchange').notNull(),
    currency: text('currency').notNull(),
    free: amount('free').notNull(),
    locked: amount('locked').notNull(),
    total: amount('total').notNull(),
    syncTimestamp: at('sync_timestamp').notNull(),
    syncStatus: text('sync_status').notNull().default('synced'),
  },
  (t) => [
    index('exchange_balances_sync_idx').on(t.syncId),
    index('exchange_balances_history_idx').on(t.userId, t.exchange, t.currency, t.syncTimestamp.desc()),
  ],
);

export const exchangeTrades = pgTable(
  'exchange_trades',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    exchange: text('exchange').notNull(),
    credentialId: uuid('credential_id').references(() => exchangeCredentials.id, { onDelete: 'set null' }),
    exchangeTradeId: text('exchange_trade_id').notNull(),
    symbol: text('symbol').notNull(),
    side: text('side').notNull(),
    /** Null only on rows stored as `failed`: the venue sent a trade we could not read completely. */
    price: amount('price'),
    amount: amount('amount'),
    total: amount('total'),
    fee: amount('fee'),
    feeCurrency: text('fee_currency'),
    tradeTimestamp: at('trade_timestamp').notNull(),
    /** synced | failed */
    syncStatus: text('sync_status').notNull().default('synced'),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [
    // Venue trade ids are unique per symbol (Binance numbers each symbol's trades from 1).
    uniqueIndex('exchange_trades_venue_id_key').on(t.userId, t.exchange, t.symbol, t.exchangeTradeId),
    // History newest first, in the list's order (time, then id), with and without a venue or a pair.
    index('exchange_trades_user_time_idx').on(t.userId, t.exchange, t.tradeTimestamp.desc(), t.id.desc()),
    index('exchange_trades_user_all_time_idx').on(t.userId, t.tradeTimestamp.desc(), t.id.desc()),
    // A pair's history, matched without its separator as the list's filter matches it (decision 1370).
    index('exchange_trades_user_pair_time_idx').on(
      t.userId,
      t.exchange,
      sql`replace(${t.symbol}, '/', '')`,
      t.tradeTimestamp.desc(),
      t.id.desc(),
    ),
    // Where a credential's market ends, for its next sync; and the credential's rows when it is deleted.
    index('exchange_trades_credential_market_idx').on(t.credentialId, t.symbol, t.tradeTimestamp.desc()),
    // The portfolio reads a user's trades stored since its watermark (docs/decisions/156).
    index('exchange_trades_user_created_idx').on(t.userId, t.createdAt),
  ],
);

/**
 * A user's trades per venue, pair and UTC day, summed: what trade statistics, list totals and deep
 * pages read instead of the trades themselves. The database keeps it, whatever writes the trades
 * (exchange.figures.ts: statement triggers); `db:reconcile` rebuilds it (docs/decisions/124).
 */
export const exchangeTradeDays = pgTable(
  'exchange_trade_days',
  {
    userId: uuid('user_id').notNull(),
    exchange: text('exchange').notNull(),
    symbol: text('symbol').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    totalTrades: integer('total_trades').notNull(),
    buyCount: integer('buy_count').notNull(),
    sellCount: integer('sell_count').notNull(),
    syncedCount: integer('synced_count').notNull(),
    failedCount: integer('failed_count').notNull(),
    totalVolume: numeric('total_volume').notNull(),
    totalFees: numeric('total_fees').notNull(),
    /** Null only while a day is being settled after rows left it. */
    firstTrade: at('first_trade'),
    lastTrade: at('last_trade'),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.exchange, t.symbol, t.day] }),
    index('exchange_trade_days_user_day_idx').on(t.userId, t.day),
  ],
);

/**
 * Each user's stored trades, counted: the admin user list's trade count, one row per user rather than
 * a sum over their trade days (hundreds of rows spread over the table for an active trader). Kept by
 * statement triggers like the days (exchange.figures.ts); `db:reconcile` rebuilds it.
 */
export const exchangeTradeCounts = pgTable('exchange_trade_counts', {
  userId: uuid('user_id').primaryKey(),
  totalTrades: integer('total_trades').notNull(),
});

export const TRANSFER_TYPES = ['deposit', 'withdrawal'] as const;
export type TransferType = (typeof TRANSFER_TYPES)[number];

/**
 * Deposits and withdrawals synced from venues (docs/decisions/155). A record is stored once per
 * venue id; a later sync updates its status (pending → ok) and nothing else.
 */
export const exchangeTransfers = pgTable(
  'exchange_transfers',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    exchange: text('exchange').notNull(),
    credentialId: uuid('credential_id').references(() => exchangeCredentials.id, { onDelete: 'set null' }),
    type: text('type').$type<TransferType>().notNull(),
    exchangeTransferId: text('exchange_transfer_id').notNull(),
    currency: text('currency').notNull(),
    amount: amount('amount').notNull(),
    /** Charged on top of `amount` (withdrawals), in `currency`. */
    fee: amount('fee').notNull().default('0'),
    txid: text('txid'),
    /** ccxt's: ok, pending, failed, canceled. Only `ok` counts in the portfolio. */
    status: text('status').notNull(),
    transferTimestamp: at('transfer_timestamp').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('exchange_transfers_venue_id_key').on(t.userId, t.exchange, t.type, t.exchangeTransferId),
    index('exchange_transfers_user_time_idx').on(t.userId, t.exchange, t.transferTimestamp.desc()),
    // A credential's transfers, set apart when it is deleted (decision 1380).
    index('exchange_transfers_credential_idx').on(t.credentialId),
    check('exchange_transfers_type_check', oneOf(t.type, TRANSFER_TYPES)),
  ],
);

/** Where a credential's deposit or withdrawal sync continues: every window before `synced_until` was read. */
export const exchangeTransferCursors = pgTable(
  'exchange_transfer_cursors',
  {
    credentialId: uuid('credential_id')
      .notNull()
      .references(() => exchangeCredentials.id, { onDelete: 'cascade' }),
    type: text('type').$type<TransferType>().notNull(),
    syncedUntil: at('synced_until').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.credentialId, t.type] }),
    check('exchange_transfer_cursors_type_check', oneOf(t.type, TRANSFER_TYPES)),
  ],
);
