// Checking a second factor, wherever one is asked for (sign-in, disabling, step-up): a TOTP code,
// whose time step is then spent for the user on every instance, or a recovery code, which works once,
// is audited and is mailed about to the owner (decisions 140, 141).
import { audit } from './auth.audit.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import type { DbExecutor } from '../../platform/db/database.ts';
import { invalidField } from '../../platform/http/errors.ts';
import type { NotificationsModule } from '../notifications/index.ts';
import type { UserRow, UsersModule } from '../users/index.ts';
import type { TwoFactorVerifyBody } from './auth.schemas.ts';
import { hashRecoveryCode, matchingStep } from './totp.ts';

/** Where a user's TOTP secret is sealed: it opens in that row and column only. */
const totpSealedAt = (userId: string) => ({ table: 'users', column: 'totp_secret_sealed', row: userId });

/** RFC 8176's `otp` for a TOTP code; `rc` (ours) for a recovery code; `webauthn` for a passkey (decision 204). */
export type SecondFactorMethod = 'otp' | 'rc' | 'webauthn';

/** The second factor as a request gives it. */
export type SecondFactorAnswer = Pick<TwoFactorVerifyBody, 'code' | 'recovery_code'>;

/** Exactly one of `code` and `recovery_code`, or a 422 naming `code`. */
export function oneAnswer(answer: SecondFactorAnswer): void {
  if ((answer.code === undefined) === (answer.recovery_code === undefined)) {
    throw invalidField(
      ['body', 'code'],
      'give either `code` or `recovery_code`',
      answer.code ?? null,
      answer.code === undefined ? 'missing' : 'value_error',
    );
  }
}

export function createSecondFactor(deps: {
  twoFactor: Pick<UsersModule['twoFactor'], 'spendStep' | 'spendRecoveryCode' | 'unusedRecoveryCodes'>;
  secretBox: SecretBox;
  messages: Pick<NotificationsModule['messages'], 'mail'>;
}) {
  const { twoFactor, secretBox, messages } = deps;
  return {
    /** The user's TOTP secret (base32), pending or enabled; undefined when there is none. */
    secretOf(user: UserRow): string | undefined {
      return user.totpSecretSealed ? secretBox.open(user.totpSecretSealed, totpSealedAt(user.id)) : undefined;
    },

    seal(userId: string, secret: string): string {
      return secretBox.seal(secret, totpSealedAt(userId));
    },

    isStale: (sealed: string): boolean => secretBox.isStale(sealed),
    /** Sealed again under the current key; throws when its key is no longer configured. */
    reseal: (userId: string, sealed: string): string => secretBox.reseal(sealed, totpSealedAt(userId)),
    currentKeyId: (): string => secretBox.currentKeyId,

    /**
     * Which second factor the answer is, when it is a right one, spending it (the code's time step,
     * or the recovery code) in `executor`; undefined for a wrong, replayed or spent one. A recovery
     * code is audited and mailed about in the same transaction.
     */
    async check(
      user: UserRow,
      answer: SecondFactorAnswer,
      context: { now: Date; ip?: string; purpose: string },
      executor: DbExecutor,
    ): Promise<SecondFactorMethod | undefined> {
      if (answer.code !== undefined) {
        // A pending setup's secret is no second factor yet (an account with a passkey may have one).
        const secret = user.totpEnabled ? this.secretOf(user) : undefined;
        const step = secret ? matchingStep(secret, answer.code, context.now) : undefined;
        if (step === undefined) return undefined;
        return (await twoFactor.spendStep(user.id, step, executor)) ? 'otp' : undefined;
      }
      if (answer.recovery_code === undefined) return undefined;
      if (
        !(await twoFactor.spendRecoveryCode(
          user.id,
          hashRecoveryCode(user.id, answer.recovery_code),
          context.now,
          executor,
        ))
      )
        return undefined;
      const remaining = await twoFactor.unusedRecoveryCodes(user.id, executor);
      await audit(
        {
          actorId: user.id,
          actorType: 'user',
          action: 'auth.2fa.recovery_code_used',
          subjectUserId: user.id,
          targetType: 'user',
          targetId: user.id,
          ip: context.ip,
          details: { purpose: context.purpose, remaining },
        },
        context.now,
        executor,
      );
      await messages.mail(
        executor,
        {
          to: user.email,
          subject: 'A recovery code was used on your account',
          text:
            'One of your two-factor recovery codes was just used ' +
            `(${context.purpose.replace('_', ' ')}${context.ip ? ` from ${context.ip}` : ''}). ${remaining} ` +
            'unused code(s) remain.\n\nIf this was not you, change your password and set up ' +
            'two-factor authentication again now.',
        },
        context.now,
      );
      return 'rc';
    },
  };
}

export type SecondFactor = ReturnType<typeof createSecondFactor>;
