// cleanup-device-sessions: deletes sessions that can no longer be used or have been abandoned.
import { Type, type Static } from 'typebox';
import { defineJob } from '../../platform/jobs.ts';

export interface CleanupDeviceSessionsDeps {
  sessions: { deleteStale(now: Date, idleDays: number): Promise<{ expired: number; revoked: number; idle: number }> };
  /** SESSION_IDLE_DAYS. */
  idleDays: number;
  /** Drops the principals the guards hold: a deleted session must fail them as a revoked one does. */
  forgetPrincipals(): void;
}

export const CleanupDeviceSessionsResult = Type.Object({
  deleted: Type.Integer({ description: 'Sessions deleted, with their refresh tokens.' }),
  expired: Type.Integer({ description: 'Of those, sessions past their expiry.' }),
  revoked: Type.Integer({ description: 'Of those, revoked sessions (logout, suspension, token reuse).' }),
  idle: Type.Integer({ description: 'Of those, sessions not seen for longer than `idle_days`.' }),
  idle_days: Type.Integer({ description: 'SESSION_IDLE_DAYS in force.' }),
});
export type CleanupDeviceSessionsResult = Static<typeof CleanupDeviceSessionsResult>;

async function cleanupDeviceSessions(deps: CleanupDeviceSessionsDeps, now: Date): Promise<CleanupDeviceSessionsResult> {
  const { expired, revoked, idle } = await deps.sessions.deleteStale(now, deps.idleDays);
  if (expired + revoked + idle > 0) deps.forgetPrincipals();
  return { expired, revoked, idle, deleted: expired + revoked + idle, idle_days: deps.idleDays };
}

export const cleanupDeviceSessionsJob = defineJob({
  name: 'cleanup-device-sessions',
  cron: '30 4 * * *',
  summary: 'Delete expired, revoked and idle device sessions',
  description:
    'Deletes device sessions that are expired, revoked, or not seen for longer than SESSION_IDLE_DAYS ' +
    '(default 30), with their refresh tokens; each session is counted once, in that order. A deleted ' +
    'session fails authentication like a revoked one (401). The audit trail keeps the logins and ' +
    'revocations. A second run deletes nothing.',
  result: CleanupDeviceSessionsResult,
  run: cleanupDeviceSessions,
});
