// cleanup-expired-tokens: deletes refresh and password-reset tokens that can never be accepted again.
import { Type, type Static } from 'typebox';
import { defineJob } from '../../platform/jobs.ts';

export interface CleanupExpiredTokensDeps {
  sessions: { deleteDeadTokens(now: Date): Promise<{ refreshTokens: number; passwordResetTokens: number }> };
}

export const CleanupExpiredTokensResult = Type.Object({
  refresh_tokens: Type.Integer({ description: 'Expired or revoked refresh tokens deleted.' }),
  password_reset_tokens: Type.Integer({ description: 'Expired or used password-reset tokens deleted.' }),
});
export type CleanupExpiredTokensResult = Static<typeof CleanupExpiredTokensResult>;

async function cleanupExpiredTokens(deps: CleanupExpiredTokensDeps, now: Date): Promise<CleanupExpiredTokensResult> {
  const deleted = await deps.sessions.deleteDeadTokens(now);
  return { refresh_tokens: deleted.refreshTokens, password_reset_tokens: deleted.passwordResetTokens };
}

export const cleanupExpiredTokensJob = defineJob({
  name: 'cleanup-expired-tokens',
  cron: '45 4 * * *',
  summary: 'Delete expired and revoked tokens',
  description:
    'Deletes refresh tokens that are expired or revoked, and password-reset tokens that are expired or used. A ' +
    'rotated refresh token that has not expired is kept on purpose: presenting it again is how a leaked token ' +
    'is detected and its session revoked. A second run deletes nothing.',
  result: CleanupExpiredTokensResult,
  run: cleanupExpiredTokens,
});
