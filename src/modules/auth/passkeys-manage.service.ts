// A signed-in user's own passkeys (decision 204): listed, renamed and removed. Removing the last
// second factor turns two-factor off; another user's passkey is as unknown as a missing one (404).
import { audit } from './auth.audit.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/database.ts';
import { notFound } from '../../platform/http/errors.ts';
import { parseUserId, type PasskeyRow, type UsersModule } from '../users/index.ts';
import type { ClientInfo } from './session-issuer.ts';

const unknownPasskey = () => notFound('Passkey not found');

export function createPasskeysManagement(deps: {
  db: Db;
  users: Pick<UsersModule, 'passkeys'>;
  clock: Clock;
  onUserChanged: (userId: string) => void;
}) {
  const { db, clock } = deps;
  const { passkeys } = deps.users;
  return {
    list: (userId: string): Promise<PasskeyRow[]> => passkeys.list(userId),

    async rename(userId: string, id: string, name: string, client: ClientInfo): Promise<PasskeyRow> {
      const passkeyId = parseUserId(id);
      if (!passkeyId) throw unknownPasskey();
      const now = clock.now();
      return db.transaction(async (tx) => {
        const row = await passkeys.rename(userId, passkeyId, name, tx);
        if (!row) throw unknownPasskey();
        await audit(
          {
            actorId: userId,
            actorType: 'user',
            action: 'auth.passkey.rename',
            subjectUserId: userId,
            targetType: 'passkey',
            targetId: row.id,
            ip: client.ip,
            details: { name },
          },
          now,
          tx,
        );
        return row;
      });
    },

    async remove(userId: string, id: string, client: ClientInfo): Promise<void> {
      const passkeyId = parseUserId(id);
      if (!passkeyId) throw unknownPasskey();
      const now = clock.now();
      await db.transaction(async (tx) => {
        const removed = await passkeys.remove(userId, passkeyId, now, tx);
        if (!removed) throw unknownPasskey();
        await audit(
          {
            actorId: userId,
            actorType: 'user',
            action: 'auth.passkey.delete',
            subjectUserId: userId,
            targetType: 'passkey',
            targetId: passkeyId,
            ip: client.ip,
            details: { twoFactorStillOn: removed.stillOn },
          },
          now,
          tx,
        );
      });
      deps.onUserChanged(userId);
    },
  };
}

export type PasskeysManagement = ReturnType<typeof createPasskeysManagement>;
