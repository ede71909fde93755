// The webhooks module's figures the database keeps (webhooks.routines.sql).
import type { DerivedFigures } from '../../platform/db/derived-figures.ts';

export const PAYMENTS_REVENUE: DerivedFigures = {
  table: 'payments_revenue',
  key: ['currency'],
  recomputed: 'payments_revenue_recomputed()',
  sources: ['payments_ledger'],
};
