// The configured first admin (ADMIN_EMAIL, ADMIN_PASSWORD), made at start: the account that set the
// platform up, and so its owner (decision 903).
import { audit } from './auth.audit.ts';
import type { Clock } from '../../platform/clock.ts';
import type { PasswordHasher } from '../../platform/crypto/passwords.ts';
import type { Db } from '../../platform/db/database.ts';
import { AppError } from '../../platform/http/errors.ts';
import type { UsersModule } from '../users/index.ts';
import type { AuthService } from './auth.service.ts';

export type BootstrapOutcome = 'created' | 'admin' | 'promoted' | 'not_promoted';

export function createAdminBootstrap(deps: {
  db: Db;
  users: Pick<UsersModule, 'accounts'>;
  service: Pick<AuthService, 'createUser'>;
  passwords: Pick<PasswordHasher, 'verify'>;
  clock: Clock;
  onUserChanged: (userId: string) => void;
}) {
  const { db, clock, passwords } = deps;
  const { accounts } = deps.users;

  /** Records what the bootstrap changed on an account that existed. */
  async function changeAndRecord(
    id: string,
    patch: { role?: 'admin'; emailVerified?: true; owner: true },
    details: object,
  ) {
    const now = clock.now();
    await db.transaction(async (tx) => {
      await accounts.change(id, patch, null, now, tx);
      await audit(
        {
          actorType: 'system',
          action: 'auth.admin_bootstrap',
          subjectUserId: id,
          targetType: 'user',
          targetId: id,
          details: { ...details },
        },
        now,
        tx,
      );
    });
    deps.onUserChanged(id);
  }

  /**
   * Created when absent, as the owner's account. An account that already has the address is made an
   * admin (and the owner) only when ADMIN_PASSWORD is its password, so that whoever registered the address
   * first on an open sign-up does not become admin by it. One that is an admin already becomes the owner
   * when the platform has none (a platform set up before owners were kept).
   */
  return async function bootstrapAdmin(email: string, password: string): Promise<BootstrapOutcome> {
    const existing = await accounts.findByEmail(email);
    if (!existing) {
      try {
        await deps.service.createUser({ email, password }, { role: 'admin', actor: 'system', owner: true });
        return 'created';
      } catch (error) {
        // Another instance starting at the same moment created it first: that is the goal reached.
        if (error instanceof AppError && error.code === 'conflict') return 'admin';
        throw error;
      }
    }
    if (existing.role === 'admin') {
      if (!existing.owner && existing.status === 'active' && !(await accounts.hasOwner()))
        await changeAndRecord(existing.id, { owner: true }, { owner: { from: false, to: true } });
      return 'admin';
    }
    if (existing.status !== 'active' || !(await passwords.verify(password, existing.passwordHash)))
      return 'not_promoted';
    await changeAndRecord(
      existing.id,
      { role: 'admin', emailVerified: true, owner: true },
      { role: { from: existing.role, to: 'admin' }, owner: { from: existing.owner, to: true } },
    );
    return 'promoted';
  };
}
