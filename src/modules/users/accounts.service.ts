// The use cases of an account: what auth, admin, billing and the operator's commands do to one.
// They hold the account's rules (the last active admin stays, a status change ends sessions, a new
// password voids reset links, the tier and the grace period follow billing) and run inside the
// caller's transaction, executor last, so the caller's audit row commits with the change.
import type { SQL } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import { conflict, invalidField, notFound } from '../../platform/http/errors.ts';
import type { AccountsRepository, NewUser, UserChanges, UserRow } from './accounts.repository.ts';
import { ADMIN_SCOPES } from '../../platform/auth/scopes.ts';
import type { ApiTokensRepository } from './api-tokens.repository.ts';
import type { SessionsRepository } from './sessions.repository.ts';
import type { TwoFactorRepository } from './two-factor.repository.ts';
import {
  assertNotSelfLockout,
  guardedOwner,
  keepsAnAdmin,
  lastAdminMessage,
  ownerMessage,
  revokesSessions,
  statusColumns,
  type Role,
  type Tier,
  type UserStatus,
} from './users.domain.ts';

/** What an account change may set; anything else of a request never reaches the row. */
interface AccountPatch {
  role?: Role;
  subscriptionTier?: Tier;
  status?: UserStatus;
  emailVerified?: boolean;
  twoFactorEnabled?: boolean;
  /** The owner's flag: the operator's alone to set (decision 903). */
  owner?: boolean;
}

const PATCHABLE = ['role', 'subscriptionTier', 'status', 'emailVerified', 'twoFactorEnabled', 'owner'] as const;

/** The tier an account falls back to when its payment grace period ends. */
export const FREE_TIER: Tier = 'free';

interface AccountChange {
  user: UserRow;
  /** Each field that changed, from what to what; empty when nothing did. */
  changes: Record<string, { from: unknown; to: unknown }>;
  /** Sessions ended by a two-factor reset, when the change was one. */
  twoFactorReset?: { sessionsRevoked: number };
}

export const userNotFound = () => notFound('User not found');

export function createAccountsService(deps: {
  accounts: AccountsRepository;
  sessions: Pick<SessionsRepository, 'revokeAll' | 'revokeAllOf' | 'expireResetTokens'>;
  twoFactor: Pick<TwoFactorRepository, 'reset'>;
  apiTokens: Pick<ApiTokensRepository, 'revokeAllOf' | 'dropScopes'>;
}) {
  const { accounts, sessions, twoFactor, apiTokens } = deps;

  /**
   * Ends every session when the new status says so, and revokes the API tokens for good: a
   * reactivated account makes new ones (decision 201). Answers the sessions ended.
   */
  async function endSessionsFor(id: string, status: UserStatus, now: Date, tx: DbExecutor, reason: string) {
    if (!revokesSessions(status)) return 0;
    await apiTokens.revokeAllOf([id], now, tx);
    return sessions.revokeAll(id, now, reason, tx);
  }

  return {
    findById: accounts.findById,
    findByEmail: accounts.findByEmail,
    findForExternalIdentity: accounts.findForExternalIdentity,
    findMany: accounts.findMany,
    hasOwner: accounts.hasOwner,
    list: accounts.list,
    names: accounts.names,
    counts: accounts.counts,
    countsByStatus: accounts.countsByStatus,

    /** A new account; a taken address is refused (409). */
    async register(user: Omit<NewUser, 'id'>, tx: DbExecutor): Promise<UserRow> {
      const row = await accounts.insert(user, tx);
      if (!row) throw conflict('A user with this email already exists');
      return row;
    },

    async recordLogin(id: string, now: Date, tx: DbExecutor): Promise<void> {
      await accounts.update(id, { lastLogin: now }, tx);
    },

    /**
     * Changes role, tier, status, e-mail verification, or resets two-factor. Refused: locking oneself
     * out (`by`, the acting account), resetting one's own two-factor (decision 882), taking the last
     * active admin away (409), turning two-factor on (the user enrolls themselves, decision 142). A suspension or deletion ends every session
     * (`admin_<status>`); a two-factor reset drops the secret and codes and ends every session.
     */
    async change(
      id: string,
      patch: AccountPatch,
      by: string | null,
      now: Date,
      tx: DbExecutor,
    ): Promise<AccountChange> {
      assertNotSelfLockout(by, id, patch);
      if (patch.owner !== undefined && by !== null)
        throw conflict("Only the operator's command line names the platform owner (users:owner)");
      // The target with the admins, where it could remove one: concurrent changes of admins take
      // turns (decision 011), every change locking its rows in id order (issue 37).
      const mayRemoveAdmin = patch.role !== undefined || patch.status !== undefined;
      const locked = await accounts.lockForChange([id], mayRemoveAdmin, tx);
      const [current] = locked.rows;
      if (!current) throw userNotFound();
      if (mayRemoveAdmin && !keepsAnAdmin(locked.activeAdmins, current, patch))
        throw conflict(lastAdminMessage(current.email));
      // One's own second factor is turned off with it (POST /api/auth/2fa/disable), never by the admin
      // role: an admin:write API token, which may not touch two-factor, would take it off its owner
      // (decision 882). Another admin, or the command line's users:reset-2fa, resets a lost one.
      if (by === id && patch.twoFactorEnabled === false && current.twoFactorEnabled) {
        throw conflict(
          'You cannot reset your own second factor here; turn it off yourself (POST /api/auth/2fa/disable, ' +
            'DELETE /api/auth/passkeys/{passkey_id})',
        );
      }
      // The owner's account keeps its role, status, verified address and second factor against other
      // admins (decision 903); its tier is anyone's to change, as billing does.
      if (guardedOwner(by, current)) {
        // Reactivating takes nothing away, as the bulk `activate` does not (decision 903).
        const verbs = { deleted: 'delete', suspended: 'suspend', active: undefined } as const;
        const taken = [
          patch.role !== undefined && patch.role !== current.role && (patch.role === 'user' ? 'demote' : 'promote'),
          patch.status !== undefined && patch.status !== current.status && verbs[patch.status],
          patch.emailVerified !== undefined &&
            patch.emailVerified !== current.emailVerified &&
            'change the address verification of',
          patch.twoFactorEnabled === false && current.twoFactorEnabled && 'reset the second factor of',
        ].find((verb) => typeof verb === 'string');
        if (taken) throw conflict(ownerMessage(current.email, taken));
      }
      if (patch.twoFactorEnabled === true && !current.twoFactorEnabled) {
        throw invalidField(
          ['body', 'twoFactorEnabled'],
          'the user enrolls themselves (POST /api/auth/2fa/setup); an admin can only turn two-factor off',
          true,
        );
      }
      const changes: AccountChange['changes'] = {};
      const set: UserChanges = { updatedAt: now };
      for (const field of PATCHABLE) {
        const next = patch[field];
        if (next === undefined || next === current[field]) continue;
        changes[field] = { from: current[field], to: next };
        Object.assign(set, field === 'status' ? statusColumns(next as UserStatus, now) : { [field]: next });
      }
      if (Object.keys(changes).length === 0) return { user: current, changes };
      const user = (await accounts.update(id, set, tx))!;
      if (changes.status) await endSessionsFor(id, user.status, now, tx, `admin_${user.status}`);
      // A demoted admin's tokens lose the admin scopes for good: a later promotion does not bring them back.
      if (changes.role?.from === 'admin') await apiTokens.dropScopes(id, ADMIN_SCOPES, now, tx);
      if (!changes.twoFactorEnabled) return { user, changes };
      await twoFactor.reset(id, now, tx);
      await apiTokens.revokeAllOf([id], now, tx);
      return {
        user,
        changes,
        twoFactorReset: { sessionsRevoked: await sessions.revokeAll(id, now, 'admin_2fa_reset', tx) },
      };
    },

    /**
     * Gives each account the status, ending sessions where it says so; one that may not take it keeps
     * its own with the reason (oneself locked out, a deleted account suspended, the last admin).
     */
    async changeStatuses(ids: string[], target: UserStatus, by: string | null, now: Date, tx: DbExecutor) {
      const mayRemoveAdmin = target !== 'active';
      const { rows, activeAdmins } = await accounts.lockForChange(ids, mayRemoveAdmin, tx);
      const skipped: { id: string; reason: string }[] = [];
      const changing: UserRow[] = [];
      for (const user of rows) {
        const reason =
          (user.id === by && target !== 'active'
            ? `You cannot ${target === 'deleted' ? 'delete' : 'suspend'} your own account`
            : undefined) ??
          (target !== 'active' && user.status !== target && guardedOwner(by, user)
            ? ownerMessage(user.email, target === 'deleted' ? 'delete' : 'suspend')
            : undefined) ??
          (target === 'suspended' && user.status === 'deleted' ? 'User is deleted; activate it first' : undefined) ??
          (mayRemoveAdmin && user.status !== target && !keepsAnAdmin(activeAdmins, user, { status: target })
            ? lastAdminMessage(user.email)
            : undefined);
        if (reason) skipped.push({ id: user.id, reason });
        else if (user.status !== target) changing.push(user);
      }
      // Set by set, one statement each: the kept counts of accounts and sessions follow in key order.
      const changingIds = changing.map((user) => user.id);
      await accounts.updateMany(changingIds, { ...statusColumns(target, now), updatedAt: now }, tx);
      let ended = new Map<string, number>();
      if (revokesSessions(target)) {
        await apiTokens.revokeAllOf(changingIds, now, tx);
        ended = await sessions.revokeAllOf(changingIds, now, `admin_${target}`, tx);
      }
      const changed = changing.map((user) => ({ user, sessionsRevoked: ended.get(user.id) ?? 0 }));
      return { found: rows.map((r) => r.id), skipped, changed };
    },

    /** Soft delete: the record stays, sessions end; undefined when it was deleted already. */
    async delete(
      id: string,
      by: string | null,
      now: Date,
      tx: DbExecutor,
    ): Promise<{ previousStatus: UserStatus; sessionsRevoked: number } | undefined> {
      assertNotSelfLockout(by, id, { status: 'deleted' });
      const locked = await accounts.lockForChange([id], true, tx);
      const [current] = locked.rows;
      if (!current) throw userNotFound();
      if (current.status === 'deleted') return undefined;
      if (guardedOwner(by, current)) throw conflict(ownerMessage(current.email, 'delete'));
      if (!keepsAnAdmin(locked.activeAdmins, current, { status: 'deleted' }))
        throw conflict(lastAdminMessage(current.email));
      await accounts.update(id, { ...statusColumns('deleted', now), updatedAt: now }, tx);
      await apiTokens.revokeAllOf([id], now, tx);
      return {
        previousStatus: current.status,
        sessionsRevoked: await sessions.revokeAll(id, now, 'admin_deleted', tx),
      };
    },

    /**
     * A new password hash: pending reset links stop working, every API token is revoked (made under
     * the old password, it may be what leaked) and every session but `keep` ends, revoked for
     * `reason`. Answers the sessions ended.
     */
    async setPassword(
      id: string,
      passwordHash: string,
      reason: string,
      now: Date,
      tx: DbExecutor,
      keep: string | null = null,
    ): Promise<number> {
      await accounts.update(id, { passwordHash, updatedAt: now }, tx);
      await sessions.expireResetTokens(id, now, tx);
      await apiTokens.revokeAllOf([id], now, tx);
      return sessions.revokeAll(id, now, reason, tx, keep);
    },

    /** Billing's tier for the account; answers the tier it had, or undefined when it had this one. */
    async changeTier(id: string, tier: Tier, now: Date, tx: DbExecutor): Promise<Tier | undefined> {
      const [current] = await accounts.lockForUpdate([id], tx);
      if (!current || current.subscriptionTier === tier) return undefined;
      await accounts.setBilling(id, { subscriptionTier: tier }, now, tx);
      return current.subscriptionTier;
    },

    /**
     * A failed payment: a grace period ending at `endsAt` opens unless one runs. Answers the one
     * in force and whether it is new.
     */
    async openGracePeriod(
      id: string,
      endsAt: Date,
      now: Date,
      tx: DbExecutor,
    ): Promise<{ endsAt: Date; opened: boolean } | undefined> {
      const [current] = await accounts.lockForUpdate([id], tx);
      if (!current) return undefined;
      if (current.gracePeriodEndsAt) return { endsAt: current.gracePeriodEndsAt, opened: false };
      await accounts.setBilling(id, { gracePeriodEndsAt: endsAt }, now, tx);
      return { endsAt, opened: true };
    },

    /** The account is in good standing again: answers whether a grace period was running. */
    async clearGracePeriod(id: string, now: Date, tx: DbExecutor): Promise<boolean> {
      const [current] = await accounts.lockForUpdate([id], tx);
      if (!current?.gracePeriodEndsAt) return false;
      await accounts.setBilling(id, { gracePeriodEndsAt: null }, now, tx);
      return true;
    },

    /** Ends up to `limit` grace periods over by `now`: the account falls to the free tier (see the repository). */
    endGracePeriods: (now: Date, limit: number, recorded: (ended: SQL) => SQL, tx: DbExecutor) =>
      accounts.endGracePeriods(now, limit, FREE_TIER, recorded, tx),
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
