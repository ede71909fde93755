// The webhooks module's figures the database keeps (webhooks.routines.sql).
import type { DerivedFigures } from '../../platform/db/derived-figures.ts';

export const PAYMENTS_REVENUE: DerivedFigures = {
  table: 'payments_revenue',
  key: ['currency'],
  recomputed: 'payments_revenue_recomputed()',
  sources: ['payments_ledger'],
};

export const WEBHOOK_DELIVERY_COUNTS: DerivedFigures = {
  table: 'webhook_delivery_counts',
  key: ['provider', 'status'],
  recomputed: 'webhook_delivery_counts_recomputed()',
  sources: ['webhook_deliveries'],
};

export const WEBHOOK_DELIVERY_HOURS: DerivedFigures = {
  table: 'webhook_delivery_hours',
  key: ['provider', 'hour'],
  recomputed: 'webhook_delivery_hours_recomputed()',
  sources: ['webhook_deliveries'],
};
