// The use cases of an account's passkeys (decision 204): storing a verified credential turns the
// second factor on, removing the last second factor turns it off, a verified assertion moves the
// counter forward; and the single-use challenges of the ceremonies. Run in the caller's transaction
// where one is named, executor last.
import type { PasskeysRepository } from './passkeys.repository.ts';

export function createPasskeysService(deps: { passkeys: PasskeysRepository }) {
  const { passkeys } = deps;
  return {
    list: passkeys.list,
    findByCredentialId: passkeys.findByCredentialId,
    add: passkeys.add,
    rename: passkeys.rename,
    remove: passkeys.remove,
    recordUse: passkeys.recordUse,
    openChallenge: passkeys.openChallenge,
    spendChallenge: passkeys.spendChallenge,
  };
}

export type PasskeysService = ReturnType<typeof createPasskeysService>;
