// The users module's figures the database keeps: declared here, their triggers, recomputation and
// first fill generated into the routines migration by db:generate (decision 240); the grace periods
// are kept by users.routines.sql.
import type { DerivedFigures } from '../../platform/db/derived-figures.ts';
import { count, keptFigures } from '../../platform/db/kept-figures.ts';

const CREATED_DAY = "(created_at AT TIME ZONE 'UTC')::date";

/** Accounts per status, role, tier and UTC day of creation (decision 124). */
export const USER_COUNTS = keptFigures({
  table: 'user_counts',
  source: 'users',
  key: { status: 'status', role: 'role', subscription_tier: 'subscription_tier', created_day: CREATED_DAY },
  figures: { n: count() },
});

/** Accounts per status and UTC day of creation alone, for readers that ask for no role or tier (decision 193). */
export const USER_DAY_COUNTS = keptFigures({
  table: 'user_day_counts',
  source: 'users',
  key: { status: 'status', created_day: CREATED_DAY },
  figures: { n: count() },
});

/** Sessions not revoked, per UTC day of expiry. */
export const DEVICE_SESSION_EXPIRY_DAYS = keptFigures({
  table: 'device_session_expiry_days',
  source: 'device_sessions',
  key: { day: "(expires_at AT TIME ZONE 'UTC')::date" },
  where: 'revoked_at IS NULL',
  figures: { n: count() },
});

/** One row per account in a grace period, kept by row triggers (users.routines.sql, decision 182). */
export const USER_GRACE_PERIODS: DerivedFigures = {
  table: 'user_grace_periods',
  key: ['user_id'],
  recomputed: 'user_grace_periods_recomputed()',
  sources: ['users'],
};
