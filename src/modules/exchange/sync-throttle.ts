// How often one user may ask for the operations that spend venue weight on their behalf: balance,
// trade and transfer syncs, and key validation (decision 200). Each kind is counted per user in the
// clock's minute, on every instance (the cache: Redis when set), and the call past the limit is a 429
// with Retry-After saying that this user's sync is throttled, before anything reaches the venue.
// The weight each call may take is bounded apart, by the user's share of the venue budget.
import type { FastifyRequest } from 'fastify';
import { actorOf } from '../../platform/auth/actor.ts';
import type { Cache } from '../../platform/cache/cache.ts';
import type { Clock } from '../../platform/clock.ts';
import { rateLimited } from '../../platform/http/errors.ts';

export type SyncKind = 'balance' | 'trades' | 'transfers' | 'validate';

const NAMES: Record<SyncKind, string> = {
  balance: 'balance sync',
  trades: 'trade sync',
  transfers: 'transfer sync',
  validate: 'key validation',
};
const MINUTE_MS = 60_000;

export function createSyncThrottle(deps: { cache: Cache; clock: Clock; perMinute: number }) {
  const { cache, clock, perMinute } = deps;
  return {
    /** A preHandler (after the bearer guard and validation) counting this user's calls of `kind`. */
    hook(kind: SyncKind) {
      return async (request: FastifyRequest): Promise<void> => {
        const user = actorOf(request).id;
        const now = clock.now().getTime();
        const minute = Math.floor(now / MINUTE_MS);
        // A cache that fails lets the call through: the venue budget still bounds what it may spend.
        const counted = await cache
          .incr(`exchange:sync-throttle:${kind}:${user}:${minute}`, 2 * MINUTE_MS)
          .catch(() => undefined);
        if (!counted || counted.count <= perMinute) return;
        const seconds = ((minute + 1) * MINUTE_MS - now) / 1000;
        throw rateLimited(
          seconds,
          `Your ${NAMES[kind]} is throttled: at most ${perMinute} a minute per user; try again in ` +
            `${Math.max(1, Math.ceil(seconds))} s`,
        );
      };
    },
  };
}

export type SyncThrottle = ReturnType<typeof createSyncThrottle>;
