// The signals module's tables (docs/decisions/220): each user's alert hooks, their secret kept only as a
// hash, and the alerts that made an order, one row per (hook, alert), so that a repeated alert makes none.
import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { oneOf } from '../../platform/db/checks.ts';
import { users } from '../users/users.tables.ts';
import { SIGNAL_MODES, type OwedAlert, type SignalMode } from './alerts.domain.ts';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const signalHooks = pgTable(
  'signal_hooks',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    mode: text('mode').$type<SignalMode>().notNull(),
    exchange: text('exchange').notNull(),
    maxLagSeconds: integer('max_lag_seconds').notNull(),
    /** CIDRs alerts may come from; null: any address. */
    allowedIps: text('allowed_ips').array(),
    /** SHA-256 of the secret, hex; the secret itself is shown once and never stored. */
    secretHash: text('secret_hash').notNull(),
    /** Alerts that made an order. */
    alertsAccepted: integer('alerts_accepted').notNull().default(0),
    /** Alerts answered 401, 413, 422 or 429. */
    alertsRefused: integer('alerts_refused').notNull().default(0),
    lastAlertAt: at('last_alert_at'),
    lastError: text('last_error'),
    createdAt: at('created_at').notNull(),
  },
  (t) => [
    index('signal_hooks_user_idx').on(t.userId, t.createdAt),
    check('signal_hooks_mode_check', oneOf(t.mode, SIGNAL_MODES)),
    check('signal_hooks_max_lag_check', sql`${t.maxLagSeconds} BETWEEN 1 AND 86400`),
  ],
);

/**
 * An alert that was claimed: its order, once placed (null while it is being placed, or when the copy that
 * claimed it stopped first: a later copy, or the settle-signal-alerts job, takes it over past the order
 * step's bound, decisions 710 and 1160).
 */
export const signalAlerts = pgTable(
  'signal_alerts',
  {
    hookId: uuid('hook_id')
      .notNull()
      .references(() => signalHooks.id, { onDelete: 'cascade' }),
    /** The alert's id, and its time when it gave one (alerts.domain.ts, alertKeyOf). */
    alertKey: text('alert_key').notNull(),
    orderId: uuid('order_id'),
    /** When its holder claimed it (a copy taking it over writes its own time): the holder's token. */
    receivedAt: at('received_at').notNull(),
    /**
     * The order the alert asked for, kept until its order is made or given up (decision 1160), so that an
     * alert acknowledged before its order step ended is settled even if its process died; never its secret.
     */
    alert: jsonb('alert').$type<OwedAlert>(),
  },
  (t) => [
    primaryKey({ columns: [t.hookId, t.alertKey] }),
    // The prune job finds the old claims by it (prune-signal-alerts.job.ts).
    index('signal_alerts_received_idx').on(t.receivedAt),
    // The settle job finds the claims still owing an order by it (settle-signal-alerts.job.ts).
    index('signal_alerts_owed_idx').on(t.receivedAt).where(sql`${t.orderId} IS NULL AND ${t.alert} IS NOT NULL`),
  ],
);
