// A signed-in user changing their own password (decision 097): the one way back for an admin, who
// may not reset their own password through the admin API.
import { audit } from './auth.audit.ts';
import type { GuardCounters } from '../../platform/cache/guard-counters.ts';
import type { Clock } from '../../platform/clock.ts';
import type { PasswordHasher } from '../../platform/crypto/passwords.ts';
import type { Db } from '../../platform/db/database.ts';
import { badRequest, invalidField, notFound, rateLimited } from '../../platform/http/errors.ts';
import type { UsersModule } from '../users/index.ts';
import type { ChangePasswordBody } from './auth.schemas.ts';
import type { ClientInfo } from './session-issuer.ts';
import { LOGIN_LIMITS } from './login-throttle.ts';

/** Wrong current passwords allowed per session (or per account without one) and window, as for logins per account and address. */
export const PASSWORD_CHANGE_LIMITS = { perUser: LOGIN_LIMITS.perAccountAndClient, windowMs: LOGIN_LIMITS.windowMs };

interface PasswordChanger {
  /** The signed-in user, and the session to keep (null for an identity provider's token: none is ours). */
  id: string;
  sessionId: string | null;
}

export function createPasswordService(deps: {
  db: Db;
  users: { accounts: Pick<UsersModule['accounts'], 'findById' | 'setPassword'> };
  passwords: PasswordHasher;
  /** Shared across instances even while Redis is away (decision 455). */
  counters: GuardCounters;
  clock: Clock;
  onUserChanged: (userId: string) => void;
}) {
  const { db, passwords, counters, clock } = deps;
  const { accounts } = deps.users;

  return {
    /**
     * Checks the current password, sets the new one, ends every other session and voids pending
     * reset links. A stolen access token alone cannot take the account over: guesses of the current
     * password are counted before the check, as logins are (decision 003), per session (decision 732).
     */
    async changePassword(changer: PasswordChanger, body: ChangePasswordBody, client: ClientInfo): Promise<void> {
      // Per session (decision 732): a session's wrong guesses hold that session only, so one taken from the
      // owner cannot keep the owner's own from changing the password (which signs it out). An identity
      // provider's token has no session of ours and counts per account.
      const key = changer.sessionId
        ? `password-change:session:${changer.sessionId}`
        : `password-change:user:${changer.id}`;
      const attempt = await counters.incr(key, PASSWORD_CHANGE_LIMITS.windowMs);
      if (attempt.count > PASSWORD_CHANGE_LIMITS.perUser) {
        throw rateLimited(attempt.resetMs / 1000, 'Too many password change attempts; try again later');
      }
      const user = await accounts.findById(changer.id);
      if (!user) throw notFound('User not found');
      if (!(await passwords.verify(body.current_password, user.passwordHash))) {
        await audit(
          {
            actorId: user.id,
            actorType: 'user',
            action: 'auth.password_change_failed',
            subjectUserId: user.id,
            ip: client.ip,
          },
          clock.now(),
          db,
        );
        throw badRequest('Current password is incorrect');
      }
      await counters.del(key);
      if (body.new_password === body.current_password) {
        throw invalidField(
          ['body', 'new_password'],
          'the new password must differ from the current one',
          body.new_password,
        );
      }
      const passwordHash = await passwords.hash(body.new_password);
      const now = clock.now();
      await db.transaction(async (tx) => {
        const revoked = await accounts.setPassword(
          user.id,
          passwordHash,
          'password_change',
          now,
          tx,
          changer.sessionId,
        );
        await audit(
          {
            actorId: user.id,
            actorType: 'user',
            action: 'auth.password_change',
            subjectUserId: user.id,
            targetType: 'user',
            targetId: user.id,
            ip: client.ip,
            details: { sessionsRevoked: revoked },
          },
          now,
          tx,
        );
      });
      // Drops the cached principals, so the revoked sessions are refused at once here (elsewhere
      // within seconds, as after a logout).
      deps.onUserChanged(user.id);
    },
  };
}

export type PasswordService = ReturnType<typeof createPasswordService>;
