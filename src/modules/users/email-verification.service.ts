// The use cases of an address's proof (decision 845): a code issued for the account's current address,
// spent once by its owner. Run in the caller's transaction where one is named, executor last.
import type { DbExecutor } from '../../platform/db/database.ts';
import type { EmailVerificationRepository } from './email-verification.repository.ts';

export function createEmailVerificationService(deps: { codes: EmailVerificationRepository }) {
  const { codes } = deps;
  return {
    /** Stores the account's one live code (its hash), for the address it is mailed to; an earlier one stops working. */
    issue: (
      code: { userId: string; tokenHash: string; email: string; expiresAt: Date },
      now: Date,
      tx: DbExecutor,
    ): Promise<void> => codes.replace(code, now, tx),
    /** Spends the account's code and marks its address verified if the code was live and the address unchanged. */
    spend: (userId: string, tokenHash: string, now: Date) => codes.spend(userId, tokenHash, now),
  };
}

export type EmailVerificationService = ReturnType<typeof createEmailVerificationService>;
