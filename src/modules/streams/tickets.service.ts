// Stream tickets: EventSource in a browser cannot send an Authorization header, so a client trades
// its bearer token for a ticket (POST /api/stream/ticket) and opens GET /api/stream?ticket=... with
// it. A ticket is random (256 bits), valid 60 s and good for one stream: it is kept in the shared
// cache (Redis across instances) under its hash, and the first redemption claims it atomically.
import { createHash, randomBytes } from 'node:crypto';
import type { Cache } from '../../platform/cache/cache.ts';
import type { Clock } from '../../platform/clock.ts';
import { rateLimited } from '../../platform/http/errors.ts';
import type { StreamPrincipal } from './stream-access.service.ts';

const TICKET_TTL_MS = 60_000;
/**
 * Tickets a user may be issued per ticket lifetime (decision 991): each is a cache entry for 60 s, so
 * this bounds what one user (or one of their tokens) keeps in the cache at once. A console reconnecting
 * in several tabs stays far below it.
 */
export const TICKETS_PER_USER = 20;

/** A ticket just issued: the secret, how long it is good for and until when. */
export interface IssuedTicket {
  ticket: string;
  validForSeconds: number;
  expiresAt: Date;
}

const keyOf = (ticket: string) => `stream-ticket:${createHash('sha256').update(ticket).digest('base64url')}`;

export function createTicketsService(deps: {
  cache: Pick<Cache, 'get' | 'set' | 'del' | 'acquire' | 'incr'>;
  clock: Clock;
}) {
  const { cache, clock } = deps;
  return {
    /** A new ticket; 429 with Retry-After past TICKETS_PER_USER in one ticket lifetime. */
    async issue(principal: StreamPrincipal): Promise<IssuedTicket> {
      const issued = await cache.incr(`stream-tickets-of:${principal.userId}`, TICKET_TTL_MS, TICKETS_PER_USER);
      if (issued.count > TICKETS_PER_USER) {
        throw rateLimited(issued.resetMs / 1000, 'Too many stream tickets; try again later');
      }
      const ticket = randomBytes(32).toString('base64url');
      const expiresAt = new Date(clock.now().getTime() + TICKET_TTL_MS);
      await cache.set(keyOf(ticket), { ...principal, expiresAt: expiresAt.getTime() }, TICKET_TTL_MS);
      return { ticket, validForSeconds: TICKET_TTL_MS / 1000, expiresAt };
    },

    /** The principal a ticket was issued to, once; undefined when unknown, expired or used. */
    async redeem(ticket: string): Promise<StreamPrincipal | undefined> {
      if (!/^[A-Za-z0-9_-]{43}$/.test(ticket)) return undefined;
      const key = keyOf(ticket);
      // Looked up before anything is written: an unknown ticket costs one read and leaves nothing
      // behind, so guessing tickets cannot fill the cache (and push other entries out of it).
      const held = await cache.get<StreamPrincipal & { expiresAt: number }>(key);
      if (!held || held.expiresAt <= clock.now().getTime()) return undefined;
      // SET NX: of two redemptions racing, on any instances, one wins.
      if (!(await cache.acquire(`${key}:used`, TICKET_TTL_MS))) return undefined;
      await cache.del(key);
      return { userId: held.userId, sessionId: held.sessionId, apiTokenId: held.apiTokenId ?? null, admin: held.admin };
    },
  };
}

export type TicketsService = ReturnType<typeof createTicketsService>;
