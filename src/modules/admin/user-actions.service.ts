// Admin actions over users: bulk status changes, CSV exports and password resets.
import { audit } from '../../platform/audit.ts';
import { revokeUserSessions } from '../../platform/auth/sessions.ts';
import type { Clock } from '../../platform/clock.ts';
import { generatePassword, hashPassword } from '../../platform/crypto/passwords.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import type { Db } from '../../platform/db/database.ts';
import { conflict, notFound } from '../../platform/http/errors.ts';
import { iso } from '../../platform/http/schemas.ts';
import { enqueueMail } from '../../platform/outbox/messages.ts';
import type { BulkActionBody, BulkActionResult, ResetPasswordQuery, ResetPasswordResult } from './user-actions.schemas.ts';
import { parseUserId, revokesSessions, statusColumns, type AdminActor } from './user-rules.ts';
import { usersToCsv } from './users-csv.ts';
import type { UserRow, UsersRepository } from './users.repository.ts';
import type { UserStatus } from './users.schemas.ts';
import type { UsersService } from './users.service.ts';

/** How long an export stays downloadable. */
export const EXPORT_TTL_MS = 24 * 60 * 60 * 1000;

const TARGET_STATUS: Record<'activate' | 'suspend' | 'delete', UserStatus> = {
  activate: 'active',
  suspend: 'suspended',
  delete: 'deleted',
};

type Skip = { id: string; reason: string };

export function createUserActionsService(deps: {
  db: Db;
  repo: UsersRepository;
  users: Pick<UsersService, 'present'>;
  clock: Clock;
  secretBox: SecretBox;
  onUserChanged: (userId: string) => void;
}) {
  const { db, repo, clock } = deps;

  /** Why this user keeps its status, or undefined when the action applies. */
  function skipReason(actor: AdminActor, user: UserRow, target: UserStatus): string | undefined {
    if (user.id === actor.id && target !== 'active') return `You cannot ${target === 'deleted' ? 'delete' : 'suspend'} your own account`;
    if (target === 'suspended' && user.status === 'deleted') return 'User is deleted; activate it first';
    return undefined;
  }

  async function changeStatus(actor: AdminActor, ids: string[], action: keyof typeof TARGET_STATUS) {
    const target = TARGET_STATUS[action];
    const now = clock.now();
    const outcome = await db.transaction(async (tx) => {
      const rows = await repo.findUsersForUpdate(ids, tx);
      const skipped: Skip[] = [];
      const changed: string[] = [];
      for (const user of rows) {
        const reason = skipReason(actor, user, target);
        if (reason) {
          skipped.push({ id: user.id, reason });
          continue;
        }
        if (user.status === target) continue;
        await repo.updateUser(user.id, { ...statusColumns(target, now), updatedAt: now }, tx);
        const sessions = revokesSessions(target) ? await revokeUserSessions(tx, user.id, now, `admin_${target}`) : 0;
        await audit(
          tx,
          {
            actorId: actor.id,
            actorType: 'admin',
            action: `admin.user.${action}`,
            subjectUserId: user.id,
            targetType: 'user',
            targetId: user.id,
            details: { previousStatus: user.status, status: target, sessionsRevoked: sessions, bulk: true },
            ip: actor.ip,
          },
          now,
        );
        changed.push(user.id);
      }
      return { found: rows.map((r) => r.id), skipped, changed };
    });
    for (const id of outcome.changed) deps.onUserChanged(id);
    return { found: outcome.found, skipped: outcome.skipped, processed: outcome.found.length - outcome.skipped.length };
  }

  async function exportUsers(actor: AdminActor, ids: string[]) {
    const rows = await repo.findUsers(ids);
    const csv = usersToCsv(await deps.users.present(rows));
    const now = clock.now();
    const stamp = iso(now)!.slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
    const saved = await db.transaction(async (tx) => {
      await repo.purgeExpiredExports(now, tx);
      const row = await repo.insertExport(
        { createdBy: actor.id, fileName: `users-${stamp}.csv`, rowCount: rows.length, content: csv, createdAt: now, expiresAt: new Date(now.getTime() + EXPORT_TTL_MS) },
        tx,
      );
      await audit(
        tx,
        { actorId: actor.id, actorType: 'admin', action: 'admin.users.export', targetType: 'admin_export', targetId: row.id, details: { userIds: rows.map((r) => r.id), rows: rows.length }, ip: actor.ip },
        now,
      );
      return row;
    });
    return { found: rows.map((r) => r.id), saved };
  }

  return {
    async bulkAction(actor: AdminActor, body: BulkActionBody): Promise<BulkActionResult> {
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
          success: true,
          action: body.action,
          processed: found.length,
          notFound: notFoundIn(found),
          skipped: [],
          exportId: saved.id,
          exportUrl: `/api/admin/users/exports/${saved.id}`,
          expiresAt: iso(saved.expiresAt)!,
        };
      }
      const { found, skipped, processed } = await changeStatus(actor, ids, body.action);
      return { success: true, action: body.action, processed, notFound: notFoundIn(found), skipped };
    },

    async downloadExport(exportId: string): Promise<{ fileName: string; content: string }> {
      const id = parseUserId(exportId);
      const row = id ? await repo.findLiveExport(id, clock.now()) : undefined;
      if (!row) throw notFound('Export not found or expired');
      return { fileName: row.fileName, content: row.content };
    },

    /**
     * Sets a new random password, ends every session and voids pending reset links. The password
     * leaves the process only inside the sealed outbox mail: never in the answer, the log or the audit.
     */
    async resetPassword(actor: AdminActor, query: ResetPasswordQuery): Promise<ResetPasswordResult> {
      const id = parseUserId(query.userId);
      const user = id ? await repo.findUser(id) : undefined;
      if (!user || user.email !== query.email.trim().toLowerCase()) throw notFound('No user matches this userId and email');
      if (user.status === 'deleted') throw conflict('The user is deleted; activate it before resetting its password');
      const password = generatePassword();
      const passwordHash = await hashPassword(password);
      const now = clock.now();
      const emailSent = await db.transaction(async (tx) => {
        await repo.updateUser(user.id, { passwordHash, updatedAt: now }, tx);
        await repo.expireResetTokens(user.id, now, tx);
        const sessions = await revokeUserSessions(tx, user.id, now, 'admin_password_reset');
        const mail = query.sendEmail
          ? await enqueueMail(
              tx,
              deps.secretBox,
              {
                to: user.email,
                subject: 'Your password was reset',
                text: `An administrator reset the password of your account ${user.email}.\n\nYour new password: ${password}\n\nSign in with it and choose a new one. Every session of your account was signed out.`,
                sensitive: true,
              },
              now,
            )
          : { queued: false };
        await audit(
          tx,
          { actorId: actor.id, actorType: 'admin', action: 'admin.user.password_reset', subjectUserId: user.id, targetType: 'user', targetId: user.id, details: { sendEmail: query.sendEmail, emailSent: mail.queued, sessionsRevoked: sessions }, ip: actor.ip },
          now,
        );
        return mail.queued;
      });
      deps.onUserChanged(user.id);
      return { success: true, emailSent };
    },
  };
}

export type UserActionsService = ReturnType<typeof createUserActionsService>;
