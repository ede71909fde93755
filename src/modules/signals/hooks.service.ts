// Signal hooks' use cases: make one (its secret shown once, kept as a hash), list a user's, replace the
// secret (the old one refused at once), remove one. Another user's hook is not found, never forbidden.
import { createHash, randomBytes } from 'node:crypto';
import type { Actor } from '../../platform/auth/actor.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db, DbExecutor } from '../../platform/db/database.ts';
import { forbidden, notFound, validationFailed } from '../../platform/http/errors.ts';
import { isVenue } from '../exchange/index.ts';
import { badAddressIndex } from './signals.schemas.ts';
import type { SignalMode } from './alerts.domain.ts';
import { audit } from './signals.audit.ts';
import type { SignalsDeps } from './signals.deps.ts';
import type { HookRow, SignalsRepository } from './signals.repository.ts';

export interface HookInput {
  name: string;
  mode: SignalMode;
  exchange: string;
  maxLagSeconds: number;
  allowedIps: string[] | null;
}

/** A hook with the secret that was just made for it: the only time it is shown. */
export interface HookWithSecret {
  hook: HookRow;
  secret: string;
}

/** 32 random bytes; hashed with SHA-256 alone, as a random secret of that size needs no slow hash. */
export const newSecret = () => `tvs_${randomBytes(32).toString('base64url')}`;
export const secretHash = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex');

const hookNotFound = () => notFound('Signal hook not found');

export function createHooksService(deps: {
  db: Db;
  repo: SignalsRepository;
  accounts: SignalsDeps['accounts'];
  clock: Clock;
}) {
  const { db, repo, accounts, clock } = deps;

  /** A live hook places real orders unattended: its owner must have two-factor on. */
  async function requireTwoFactor(userId: string): Promise<void> {
    const user = await accounts.findById(userId);
    if (!user?.twoFactorEnabled) throw forbidden('A live signal hook needs two-factor authentication on your account');
  }

  /**
   * Before an alert's order: the hook's owner may trade now. A suspended or deleted account's bearer tokens
   * are refused at once (DESIGN §4), and its hooks' secrets place nothing either (decision 1070); a live
   * hook's owner has two-factor on (decision 220).
   */
  async function requireOwnerMayTrade(userId: string, mode: SignalMode): Promise<void> {
    const user = await accounts.findById(userId);
    if (user && user.status !== 'active') throw forbidden(`The hook owner's account is ${user.status}`);
    if (mode === 'live' && !user?.twoFactorEnabled)
      throw forbidden('A live signal hook needs two-factor authentication on your account');
  }

  return {
    requireOwnerMayTrade,

    async create(input: HookInput, actor: Actor): Promise<HookWithSecret> {
      const bad = badAddressIndex(input.allowedIps);
      if (bad >= 0)
        throw validationFailed([
          {
            type: 'value_error',
            loc: ['body', 'allowed_ips', bad],
            msg: 'Value error, not an IP address or CIDR',
            input: input.allowedIps![bad],
            ctx: { error: 'not an IP address or CIDR' },
          },
        ]);
      // The order path takes only the venues it knows (POST /api/orders' `exchange`); a hook naming another
      // would have every alert refused, or worse, answered by whatever an unknown venue id does (decision 1071).
      if (!isVenue(input.exchange))
        throw validationFailed([
          {
            type: 'value_error',
            loc: ['body', 'exchange'],
            msg: 'Value error, not a venue orders can be placed on',
            input: input.exchange,
            ctx: { error: 'not a venue orders can be placed on' },
          },
        ]);
      if (input.mode === 'live') await requireTwoFactor(actor.id);
      const secret = newSecret();
      const now = clock.now();
      const hook = await db.transaction(async (tx) => {
        const row = await repo.insert({ ...input, userId: actor.id, secretHash: secretHash(secret) }, now, tx);
        await audit(
          {
            actorId: actor.id,
            actorType: 'user',
            action: 'signal_hook.create',
            subjectUserId: actor.id,
            targetType: 'signal_hook',
            targetId: row.id,
            details: { name: row.name, mode: row.mode, exchange: row.exchange },
            ip: actor.ip,
          },
          now,
          tx,
        );
        return row;
      });
      return { hook, secret };
    },

    list: (userId: string): Promise<HookRow[]> => repo.listOf(userId),

    /**
     * A new secret for one of the actor's hooks; a live hook's only if `assertSteppedUp` passes (it throws
     * otherwise, and nothing is changed): its secret places live orders (decision 680).
     */
    async rotate(id: string, actor: Actor, assertSteppedUp: () => void): Promise<HookWithSecret> {
      const secret = newSecret();
      const now = clock.now();
      const hook = await db.transaction(async (tx) => {
        const row = await repo.setSecret(actor.id, id, secretHash(secret), tx);
        if (!row) throw hookNotFound();
        if (row.mode === 'live') assertSteppedUp();
        await audit(
          {
            actorId: actor.id,
            actorType: 'user',
            action: 'signal_hook.rotate',
            subjectUserId: actor.id,
            targetType: 'signal_hook',
            targetId: id,
            ip: actor.ip,
          },
          now,
          tx,
        );
        return row;
      });
      return { hook, secret };
    },

    /**
     * A provider's first link claimed the account from whoever registered its address (decision 790): they
     * hold every hook's secret, which places orders in the account with no sign-in, so every hook goes in the
     * link's transaction, audited as the service's deletion. Nothing to do after the commit.
     */
    async removeAllOnClaim(userId: string, now: Date, tx: DbExecutor): Promise<undefined> {
      for (const row of await repo.removeAllOf(userId, tx))
        await audit(
          {
            actorType: 'system',
            action: 'signal_hook.delete',
            subjectUserId: userId,
            targetType: 'signal_hook',
            targetId: row.id,
            details: { name: row.name, reason: 'external_identity_claimed' },
          },
          now,
          tx,
        );
      return undefined;
    },

    async remove(id: string, actor: Actor): Promise<void> {
      const now = clock.now();
      await db.transaction(async (tx) => {
        const row = await repo.remove(actor.id, id, tx);
        if (!row) throw hookNotFound();
        await audit(
          {
            actorId: actor.id,
            actorType: 'user',
            action: 'signal_hook.delete',
            subjectUserId: actor.id,
            targetType: 'signal_hook',
            targetId: id,
            details: { name: row.name },
            ip: actor.ip,
          },
          now,
          tx,
        );
      });
    },
  };
}

export type HooksService = ReturnType<typeof createHooksService>;
