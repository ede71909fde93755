// Revoking every session of a user: used by logout-everywhere, suspension, deletion and resets.
import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { DbExecutor } from '../db/database.ts';
import { deviceSessions, refreshTokens } from '../db/schema.ts';

/** Returns how many sessions were revoked. */
export async function revokeUserSessions(executor: DbExecutor, userId: string, at: Date, reason: string): Promise<number> {
  const revoked = await executor
    .update(deviceSessions)
    .set({ revokedAt: at, revokeReason: reason })
    .where(and(eq(deviceSessions.userId, userId), isNull(deviceSessions.revokedAt)))
    .returning({ id: deviceSessions.id });
  if (revoked.length > 0) {
    await executor
      .update(refreshTokens)
      .set({ revokedAt: at })
      .where(and(inArray(refreshTokens.sessionId, revoked.map((s) => s.id)), isNull(refreshTokens.revokedAt)));
  }
  return revoked.length;
}
