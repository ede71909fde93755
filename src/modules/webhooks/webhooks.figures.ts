// The webhooks module's figures the database keeps: declared here, their triggers, recomputation and
// first fill generated into the routines migration by db:generate (decision 240).
import { count, keptFigures, sum } from '../../platform/db/kept-figures.ts';

/** The payments ledger per upper-cased currency (decision 124). */
export const PAYMENTS_REVENUE = keptFigures({
  table: 'payments_revenue',
  source: 'payments_ledger',
  key: { currency: 'upper(currency)' },
  figures: { amount: sum('amount'), payments: count() },
});

/** Deliveries per provider and status: webhook health's counts. */
export const WEBHOOK_DELIVERY_COUNTS = keptFigures({
  table: 'webhook_delivery_counts',
  source: 'webhook_deliveries',
  key: { provider: 'provider', status: 'status' },
  figures: { n: count() },
});

/** Deliveries per provider and hour of receipt: "since" counts read whole hours, then the first part-hour's deliveries. */
export const WEBHOOK_DELIVERY_HOURS = keptFigures({
  table: 'webhook_delivery_hours',
  source: 'webhook_deliveries',
  key: { provider: 'provider', hour: "date_trunc('hour', received_at)" },
  figures: { n: count() },
});
