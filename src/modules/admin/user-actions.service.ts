// Admin actions over users: bulk status changes, CSV exports and password resets.
import { audit } from './admin.audit.ts';
import type { Clock } from '../../platform/clock.ts';
import { generatePassword, type PasswordHasher } from '../../platform/crypto/passwords.ts';
import type { Db } from '../../platform/db/database.ts';
import { transactionRetrying } from '../../platform/db/retry.ts';
import { conflict, notFound } from '../../platform/http/errors.ts';
import { iso } from '../../platform/http/schemas.ts';
import type { NotificationsModule } from '../notifications/index.ts';
import { guardedOwner, ownerMessage, parseUserId, type UsersModule, type UserStatus } from '../users/index.ts';
import type { BulkActionBody, ResetPasswordQuery } from './user-actions.schemas.ts';
import { type AdminActor, actorTypeOf, type BulkOutcome } from './admin.domain.ts';
import { userWire } from './admin.wire.ts';
import { usersToCsv } from './users-csv.ts';
import type { ExportsRepository } from './exports.repository.ts';
import type { UsersService } from './users.service.ts';

/** How long an export stays downloadable. */
export const EXPORT_TTL_MS = 24 * 60 * 60 * 1000;

const TARGET_STATUS: Record<'activate' | 'suspend' | 'delete', UserStatus> = {
  activate: 'active',
  suspend: 'suspended',
  delete: 'deleted',
};

export function createUserActionsService(deps: {
  db: Db;
  users: Pick<UsersModule, 'accounts'>;
  exports: ExportsRepository;
  presenter: Pick<UsersService, 'present'>;
  messages: Pick<NotificationsModule['messages'], 'mail'>;
  passwords: Pick<PasswordHasher, 'hash'>;
  clock: Clock;
  onUserChanged: (userId: string) => void;
}) {
  const { db, clock, exports, passwords } = deps;
  const { accounts } = deps.users;

  async function changeStatus(actor: AdminActor, ids: string[], action: keyof typeof TARGET_STATUS) {
    const target = TARGET_STATUS[action];
    const now = clock.now();
    const outcome = await transactionRetrying(db, async (tx) => {
      const { found, skipped, changed } = await accounts.changeStatuses(ids, target, actor.id, now, tx);
      for (const { user, sessionsRevoked } of changed) {
        await audit(
          {
            actorId: actor.id,
            actorType: actorTypeOf(actor),
            action: `admin.user.${action}`,
            subjectUserId: user.id,
            targetType: 'user',
            targetId: user.id,
            details: { previousStatus: user.status, status: target, sessionsRevoked, bulk: true },
            ip: actor.ip,
          },
          now,
          tx,
        );
      }
      return { found, skipped, changed: changed.map(({ user }) => user.id) };
    });
    for (const id of outcome.changed) deps.onUserChanged(id);
    return { found: outcome.found, skipped: outcome.skipped, processed: outcome.found.length - outcome.skipped.length };
  }

  async function exportUsers(actor: AdminActor, ids: string[]) {
    const rows = await accounts.findMany(ids);
    const csv = usersToCsv((await deps.presenter.present(rows)).map(userWire));
    const now = clock.now();
    const stamp = iso(now)!.slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
    const saved = await db.transaction(async (tx) => {
      await exports.purgeExpired(now, tx);
      const row = await exports.insert(
        {
          createdBy: actor.id,
          fileName: `users-${stamp}.csv`,
          rowCount: rows.length,
          content: csv,
          createdAt: now,
          expiresAt: new Date(now.getTime() + EXPORT_TTL_MS),
        },
        tx,
      );
      await audit(
        {
          actorId: actor.id,
          actorType: actorTypeOf(actor),
          action: 'admin.users.export',
          targetType: 'admin_export',
          targetId: row.id,
          details: { userIds: rows.map((r) => r.id), rows: rows.length },
          ip: actor.ip,
        },
        now,
        tx,
      );
      return row;
    });
    return { found: rows.map((r) => r.id), saved };
  }

  return {
    async bulkAction(body: BulkActionBody, actor: AdminActor): Promise<BulkOutcome> {
      // Each id as given, with its canonical form (undefined for a non-UUID, which matches nobody).
      const given = [...new Set(body.userIds)].map((raw) => ({ raw, id: parseUserId(raw) }));
      const ids = [...new Set(given.flatMap((g) => (g.id ? [g.id] : [])))];
      const notFoundIn = (found: string[]) => {
        const known = new Set(found);
        return given.filter((g) => !g.id || !known.has(g.id)).map((g) => g.raw);
      };

      if (body.action === 'export') {
        const { found, saved } = await exportUsers(actor, ids);
        return {
          action: body.action,
          processed: found.length,
          notFound: notFoundIn(found),
          skipped: [],
          export: { id: saved.id, expiresAt: saved.expiresAt },
        };
      }
      const { found, skipped, processed } = await changeStatus(actor, ids, body.action);
      return { action: body.action, processed, notFound: notFoundIn(found), skipped };
    },

    async downloadExport(exportId: string): Promise<{ fileName: string; content: string }> {
      const id = parseUserId(exportId);
      const row = id ? await exports.findLive(id, clock.now()) : undefined;
      if (!row) throw notFound('Export not found or expired');
      return { fileName: row.fileName, content: row.content };
    },

    /**
     * Sets a new random password, ends every session and voids pending reset links. The password
     * leaves the process only inside the sealed outbox mail: never in the answer, the log or the audit.
     */
    /** Answers whether the mail with the new password was queued. */
    async resetPassword(query: ResetPasswordQuery, actor: AdminActor): Promise<boolean> {
      const id = parseUserId(query.userId);
      const user = id ? await accounts.findById(id) : undefined;
      if (!user || user.email !== query.email.trim().toLowerCase())
        throw notFound('No user matches this userId and email');
      if (user.status === 'deleted') throw conflict('The user is deleted; activate it before resetting its password');
      // It would revoke the admin's own sessions and set a password nobody knows (decision 097).
      if (user.id === actor.id)
        throw conflict('You cannot reset your own password here; change it with POST /api/auth/password');
      // The owner changes their own password; the operator's users:reset-password sets a lost one (decision 903).
      if (guardedOwner(actor.id, user)) throw conflict(ownerMessage(user.email, 'reset the password of'));
      const password = generatePassword();
      const passwordHash = await passwords.hash(password);
      const now = clock.now();
      const emailSent = await transactionRetrying(db, async (tx) => {
        const revoked = await accounts.setPassword(user.id, passwordHash, 'admin_password_reset', now, tx);
        const mail = query.sendEmail
          ? await deps.messages.mail(
              tx,
              {
                to: user.email,
                subject: 'Your password was reset',
                text:
                  `An administrator reset the password of your account ${user.email}.\n\nYour new ` +
                  `password: ${password}\n\nSign in with it and choose a new one. Every session ` +
                  'of your account was signed out.',
                sensitive: true,
              },
              now,
            )
          : { queued: false };
        await audit(
          {
            actorId: actor.id,
            actorType: actorTypeOf(actor),
            action: 'admin.user.password_reset',
            subjectUserId: user.id,
            targetType: 'user',
            targetId: user.id,
            details: { sendEmail: query.sendEmail, emailSent: mail.queued, sessionsRevoked: revoked },
            ip: actor.ip,
          },
          now,
          tx,
        );
        return mail.queued;
      });
      deps.onUserChanged(user.id);
      return emailSent;
    },

    /**
     * The operator's recovery path (`npm run cli -- users:reset-password`): sets the given password,
     * ends every session and voids pending reset links; the caller shows the password once.
     */
    async setPassword(
      actor: AdminActor,
      email: string,
      password: string,
    ): Promise<{ userId: string; sessionsRevoked: number }> {
      const user = await accounts.findByEmail(email);
      if (!user) throw notFound('No user has this e-mail');
      if (user.status === 'deleted') throw conflict('The user is deleted; activate it before resetting its password');
      const passwordHash = await passwords.hash(password);
      const now = clock.now();
      const sessionsRevoked = await transactionRetrying(db, async (tx) => {
        const revoked = await accounts.setPassword(user.id, passwordHash, 'admin_password_reset', now, tx);
        await audit(
          {
            actorId: actor.id,
            actorType: actorTypeOf(actor),
            action: 'admin.user.password_set',
            subjectUserId: user.id,
            targetType: 'user',
            targetId: user.id,
            details: { sessionsRevoked: revoked },
            ip: actor.ip,
          },
          now,
          tx,
        );
        return revoked;
      });
      deps.onUserChanged(user.id);
      return { userId: user.id, sessionsRevoked };
    },
  };
}

export type UserActionsService = ReturnType<typeof createUserActionsService>;
