// Tables private to the webhooks module: every verified inbound delivery, the payment provider's
// customer ids mapped to our users (subscription events carry no e-mail), and the payments ledger
// its events record (admin statistics read it through the module's port).
import {
  boolean,
  check,
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
import { DELIVERY_STATUSES } from './deliveries.domain.ts';
import { WEBHOOK_PROVIDERS } from './providers/registry.ts';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** One of the declared providers (providers/registry.ts). */
    provider: text('provider').notNull(),
    /** The sender's delivery id (GUID, event id, svix id...), else the content key. */
    deliveryId: text('delivery_id').notNull(),
    /**
     * `sha256:<hex of the raw body>@<start of its same-body window>`, for deliveries whose body also
     * names them (decision 099): no sender id, or one the signature does not cover.
     */
    contentKey: text('content_key'),
    /** Event name, e.g. `pull_request.opened`, `invoice.paid`, `Issue.update`. */
    event: text('event').notNull(),
    /** The parsed body with secret-looking fields (tokens, passwords) redacted. */
    payload: jsonb('payload').$type<unknown>().notNull(),
    /** False when accepted without a signature because WEBHOOKS_ALLOW_UNSIGNED=true. */
    verified: boolean('verified').notNull().default(true),
    receivedAt: timestamp('received_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** DELIVERY_STATUSES (a failed delivery is processed again when the sender retries it). */
    status: text('status').notNull(),
    attempts: integer('attempts').notNull().default(1),
    /** When the last processing attempt ended. */
    processedAt: timestamp('processed_at', { withTimezone: true, mode: 'date' }),
    error: text('error'),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_provider_delivery_key').on(t.provider, t.deliveryId),
    // Every read names its provider, so every index begins with it (decision 123): the latest receipt
    // and receipts since a time; the latest attempt; the latest of each outcome and the unmatched count.
    // An index on the time alone would tempt the planner to walk it for a provider with no rows.
    index('webhook_deliveries_provider_received_idx').on(t.provider, t.receivedAt.desc()),
    index('webhook_deliveries_provider_processed_idx').on(t.provider, t.processedAt.desc()),
    index('webhook_deliveries_provider_status_idx').on(t.provider, t.status, t.processedAt.desc()),
    index('webhook_deliveries_provider_content_idx').on(t.provider, t.contentKey),
    check('webhook_deliveries_provider_check', oneOf(t.provider, WEBHOOK_PROVIDERS)),
    check('webhook_deliveries_status_check', oneOf(t.status, DELIVERY_STATUSES)),
  ],
);

export const paymentCustomers = pgTable(
  'payment_customers',
  {
    /** The payment provider's customer id, e.g. `cus_...`. */
    customerId: text('customer_id').primaryKey(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    /** Lower-cased; lets a user who registers later still be matched. */
    email: text('email'),
    /** The tier this customer's newest applied subscription change grants; null before one (decision 975). */
    tier: text('tier'),
    /**
     * How the customer was linked to its user: true by a user id in the provider's metadata, false by
     * the e-mail the payer typed; null for a link made before decision 1021, how is not known.
     */
    proven: boolean('proven'),
    /**
     * Linked by a typed e-mail: the user's tier before this customer's raise that still stands. Such
     * a customer lowers the user no further than this, and only while the raise stands (decision 1021).
     */
    raisedFrom: text('raised_from'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('payment_customers_user_idx').on(t.userId)],
);

/** Payments recorded from the payment provider's webhooks; the source of `totalRevenue`. */
export const paymentsLedger = pgTable(
  'payments_ledger',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** Provider's object id (e.g. the invoice id); a payment is recorded once. */
    externalId: text('external_id').notNull(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    customerEmail: text('customer_email'),
    /** Major units (e.g. dollars), exact. */
    amount: numeric('amount', { precision: 20, scale: 8 }).notNull(),
    currency: text('currency').notNull(),
    kind: text('kind').notNull().default('payment'),
    occurredAt: timestamp('occurred_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('payments_ledger_external_key').on(t.externalId),
    // A user deleted keeps its payments, their user set to null: found here, not by reading the whole ledger
    // (decision 1490).
    index('payments_ledger_user_idx').on(t.userId),
  ],
);

/**
 * The payments ledger summed per currency (upper case): the platform statistics' revenue. The
 * database keeps it, whatever writes the ledger (webhooks.figures.ts); `db:reconcile` rebuilds it
 * (docs/decisions/124).
 */
export const paymentsRevenue = pgTable('payments_revenue', {
  currency: text('currency').primaryKey(),
  amount: numeric('amount').notNull(),
  payments: integer('payments').notNull(),
});

/**
 * Deliveries per provider and status, kept by the database (webhooks.figures.ts,
 * docs/decisions/124): webhook health's counts.
 */
export const webhookDeliveryCounts = pgTable(
  'webhook_delivery_counts',
  { provider: text('provider').notNull(), status: text('status').notNull(), n: integer('n').notNull() },
  (t) => [primaryKey({ columns: [t.provider, t.status] })],
);

/**
 * Deliveries per provider and hour of receipt, kept by the database (webhooks.figures.ts,
 * docs/decisions/124): counts since an instant.
 */
export const webhookDeliveryHours = pgTable(
  'webhook_delivery_hours',
  {
    provider: text('provider').notNull(),
    hour: timestamp('hour', { withTimezone: true, mode: 'date' }).notNull(),
    n: integer('n').notNull(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.hour] })],
);
