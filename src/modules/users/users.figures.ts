// The users module's figures the database keeps (users.routines.sql).
import type { DerivedFigures } from '../../platform/db/derived-figures.ts';

export const USER_COUNTS: DerivedFigures = {
  table: 'user_counts',
  key: ['status', 'role', 'subscription_tier', 'created_day'],
  recomputed: 'user_counts_recomputed()',
  sources: ['users'],
};

export const USER_DAY_COUNTS: DerivedFigures = {
  table: 'user_day_counts',
  key: ['status', 'created_day'],
  recomputed: 'user_day_counts_recomputed()',
  sources: ['users'],
};

export const DEVICE_SESSION_EXPIRY_DAYS: DerivedFigures = {
  table: 'device_session_expiry_days',
  key: ['day'],
  recomputed: 'device_session_expiry_days_recomputed()',
  sources: ['device_sessions'],
};

export const USER_GRACE_PERIODS: DerivedFigures = {
  table: 'user_grace_periods',
  key: ['user_id'],
  recomputed: 'user_grace_periods_recomputed()',
  sources: ['users'],
};
