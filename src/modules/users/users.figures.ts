// The users module's figures the database keeps (users.routines.sql).
import type { DerivedFigures } from '../../platform/db/derived-figures.ts';

export const USER_COUNTS: DerivedFigures = {
  table: 'user_counts',
  key: ['status', 'role', 'subscription_tier', 'created_month'],
  recomputed: 'user_counts_recomputed()',
  sources: ['users'],
};
