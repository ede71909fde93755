// The use cases of an account's second factor (decisions 140, 141): enrolment (a pending secret,
// then a right code turns it on with fresh recovery codes), turning it off (secret, codes and
// pending sign-ins go, other sessions end), spending codes, and the sign-ins waiting for a second
// factor. Run in the caller's transaction where one is named, executor last.
import type { DbExecutor } from '../../platform/db/database.ts';
import type { SessionsRepository } from './sessions.repository.ts';
import type { TwoFactorRepository } from './two-factor.repository.ts';

export function createTwoFactorService(deps: {
  twoFactor: TwoFactorRepository;
  sessions: Pick<SessionsRepository, 'markSecondFactor' | 'revokeAll'>;
}) {
  const { twoFactor, sessions } = deps;
  return {
    setPendingSecret: twoFactor.setPendingSecret,
    spendStep: twoFactor.spendStep,
    spendRecoveryCode: twoFactor.spendRecoveryCode,
    unusedRecoveryCodes: twoFactor.unusedRecoveryCodes,
    sealedPage: twoFactor.sealedPage,
    replaceSealed: twoFactor.replaceSealed,
    openChallenge: twoFactor.openChallenge,
    findChallenge: twoFactor.findChallenge,
    spendChallenge: twoFactor.spendChallenge,

    /**
     * Turns two-factor on with the code's time `step` (spent here, so a replayed code is refused) and
     * the recovery codes' hashes. The code is a second factor: the session it came through is marked,
     * and every other session ends (`2fa_enabled`): one opened by whoever knew the password alone
     * must not outlive the second factor meant to shut them out.
     */
    async enable(
      userId: string,
      step: number,
      codeHashes: string[],
      sessionId: string | null,
      now: Date,
      tx: DbExecutor,
    ): Promise<'enabled' | 'replayed' | 'raced'> {
      if (!(await twoFactor.spendStep(userId, step, tx))) return 'replayed';
      if (!(await twoFactor.enable(userId, codeHashes, now, tx))) return 'raced';
      if (sessionId) await sessions.markSecondFactor(sessionId, now, 'otp', tx);
      await sessions.revokeAll(userId, now, '2fa_enabled', tx, sessionId);
      return 'enabled';
    },

    /** Turns two-factor off and ends every session but `keep` (`2fa_disabled`); answers how many ended. */
    async disable(userId: string, keep: string | null, now: Date, tx: DbExecutor): Promise<number> {
      await twoFactor.disable(userId, now, tx);
      return sessions.revokeAll(userId, now, '2fa_disabled', tx, keep);
    },
  };
}

export type TwoFactorService = ReturnType<typeof createTwoFactorService>;
