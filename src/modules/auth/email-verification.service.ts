// A signed-in user proving their account's address (decision 845): a code mailed to that address, spent
// by the same account within a day. Decision 840 mails notices only to a proven address.
import { audit } from './auth.audit.ts';
import type { GuardCounters } from '../../platform/cache/guard-counters.ts';
import type { Clock } from '../../platform/clock.ts';
import { hashToken, newOpaqueToken } from '../../platform/auth/tokens.ts';
import type { Db } from '../../platform/db/database.ts';
import { badRequest, conflict, notFound, rateLimited } from '../../platform/http/errors.ts';
import type { NotificationsModule } from '../notifications/index.ts';
import type { UsersModule } from '../users/index.ts';

/** A code's life, and how many codes an account may have mailed per window (it mails an unproven address). */
export const EMAIL_VERIFICATION = { ttlMs: 24 * 3_600_000, perUser: 3, windowMs: 3_600_000 };

export function createEmailVerificationService(deps: {
  db: Db;
  users: {
    accounts: Pick<UsersModule['accounts'], 'findById'>;
    emailVerification: UsersModule['emailVerification'];
  };
  messages: Pick<NotificationsModule['messages'], 'mail'>;
  /** Shared across instances even while Redis is away (decision 455). */
  counters: GuardCounters;
  clock: Clock;
  onUserChanged: (userId: string) => void;
}) {
  const { db, messages, counters, clock } = deps;
  const { accounts, emailVerification } = deps.users;

  return {
    /**
     * Mails the account's address a new code, replacing any earlier one. An address already verified is
     * a conflict; past the bound, 429 (counted before anything is mailed).
     */
    async request(userId: string): Promise<void> {
      const user = await accounts.findById(userId);
      if (!user) throw notFound('User not found');
      if (user.emailVerified) throw conflict('The e-mail address is already verified');
      const attempt = await counters.incr(`email-verify:user:${user.id}`, EMAIL_VERIFICATION.windowMs);
      if (attempt.count > EMAIL_VERIFICATION.perUser) {
        throw rateLimited(attempt.resetMs / 1000, 'Too many verification mails; try again later');
      }
      const token = newOpaqueToken();
      const now = clock.now();
      await db.transaction(async (tx) => {
        await emailVerification.issue(
          {
            userId: user.id,
            tokenHash: hashToken(token),
            email: user.email,
            expiresAt: new Date(now.getTime() + EMAIL_VERIFICATION.ttlMs),
          },
          now,
          tx,
        );
        await messages.mail(
          tx,
          {
            to: user.email,
            subject: 'Verify your e-mail address',
            text:
              `Your verification code is:\n\n${token}\n\nSigned in to your account, send it to ` +
              'POST /api/auth/email/verify within 24 hours; it works once, and a newer code replaces it.\n\n' +
              'If you did not ask for this, ignore this mail: nothing is verified without it.',
            // The code is sealed in the outbox and wiped once sent.
            sensitive: true,
          },
          now,
        );
      });
    },

    /** Spends the account's code: its address is verified if the code is live and was mailed to that address. */
    async verify(userId: string, token: string, ip: string | undefined): Promise<void> {
      const now = clock.now();
      const outcome = await emailVerification.spend(userId, hashToken(token), now);
      if (outcome === 'unknown') throw badRequest('Invalid verification code');
      if (outcome === 'expired') throw badRequest('The verification code has expired; request a new one');
      if (outcome === 'address_changed') {
        throw badRequest('The verification code was sent to another address; request a new one');
      }
      await audit(
        {
          actorId: userId,
          actorType: 'user',
          action: 'auth.email_verified',
          subjectUserId: userId,
          targetType: 'user',
          targetId: userId,
          ip,
        },
        now,
        db,
      );
      // The cached principal carries the account; /api/auth/me and the notices read it fresh.
      deps.onUserChanged(userId);
    },
  };
}

export type EmailVerificationService = ReturnType<typeof createEmailVerificationService>;
