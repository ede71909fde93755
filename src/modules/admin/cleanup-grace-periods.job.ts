// cleanup-grace-periods: users whose payment grace period has ended go back to the free tier.
import { Type, type Static } from 'typebox';
import { defineJob } from '../../platform/jobs.ts';

interface CleanupGracePeriodsDeps {
  users: { endExpiredGracePeriods(now: Date): Promise<{ downgraded: number; cleared: number }> };
}

export const CleanupGracePeriodsResult = Type.Object({
  downgraded: Type.Integer({ description: 'Users moved from a paid tier to `free`.' }),
  cleared: Type.Integer({
    description: 'Ended grace periods cleared (the downgraded users and free users who still had a date).',
  }),
});
export type CleanupGracePeriodsResult = Static<typeof CleanupGracePeriodsResult>;

async function cleanupGracePeriods(deps: CleanupGracePeriodsDeps, now: Date): Promise<CleanupGracePeriodsResult> {
  return deps.users.endExpiredGracePeriods(now);
}

export const cleanupGracePeriodsJob = defineJob({
  name: 'cleanup-grace-periods',
  cron: '15 * * * *',
  summary: 'End expired payment grace periods',
  description:
    'Every user whose `grace_period_ends_at` (set by a failed payment, GRACE_PERIOD_DAYS after it) is at or ' +
    'before now goes back to the `free` tier if on a paid one, and the grace period is cleared; one audit ' +
    'row per user (`billing.grace_period.expired`, or `billing.grace_period.clear` for a user already on ' +
    '`free`). A second run finds nobody.',
  result: CleanupGracePeriodsResult,
  run: cleanupGracePeriods,
});
