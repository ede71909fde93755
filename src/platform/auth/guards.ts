// Bearer-token guards. They run in onRequest, before validation, as FastAPI runs security first.
// Every request re-checks the user's status and the session (cached for a few seconds), so a
// suspension or a logout takes effect at once, not when the access token expires.
import { and, eq } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { deviceSessions, users } from '../db/schema.ts';
import { AppError, forbidden, unauthenticated } from '../http/errors.ts';
import type { TokenService } from './tokens.ts';

export interface AuthenticatedUser {
  id: string;
  email: string;
  role: string;
  sessionId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    user?: AuthenticatedUser;
  }
}

export type Guard = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

export interface Guards {
  requireUser: Guard;
  requireAdmin: Guard;
  /** Drops cached principals so the next request re-reads them (after a status or role change). */
  invalidate(userId?: string): void;
}

interface Principal {
  user: AuthenticatedUser;
  status: string;
  revoked: boolean;
  expiresAt: Date;
  lastSeenAt: Date;
  loadedAt: number;
}

const PRINCIPAL_TTL_MS = 2_000;
const LAST_SEEN_RESOLUTION_MS = 60_000;

/** The user behind an authenticated route; the guard guarantees it is there. */
export function currentUser(request: FastifyRequest): AuthenticatedUser {
  if (!request.user) throw unauthenticated();
  return request.user;
}

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const [scheme, token] = header.split(' ');
  if (scheme?.toLowerCase() !== 'bearer' || !token) return undefined;
  return token.trim();
}

export function createGuards(deps: { tokens: TokenService; database: Database; clock: Clock }): Guards {
  const { tokens, database, clock } = deps;
  const cache = new Map<string, Principal>();

  async function loadPrincipal(sessionId: string, userId: string): Promise<Principal | undefined> {
    const cached = cache.get(sessionId);
    if (cached && cached.user.id === userId && Date.now() - cached.loadedAt < PRINCIPAL_TTL_MS) return cached;
    const [row] = await database.db
      .select({
        id: users.id,
        email: users.email,
        role: users.role,
        status: users.status,
        revokedAt: deviceSessions.revokedAt,
        expiresAt: deviceSessions.expiresAt,
        lastSeenAt: deviceSessions.lastSeenAt,
      })
      .from(deviceSessions)
      .innerJoin(users, eq(users.id, deviceSessions.userId))
      .where(and(eq(deviceSessions.id, sessionId), eq(users.id, userId)))
      .limit(1);
    if (!row) {
      cache.delete(sessionId);
      return undefined;
    }
    const principal: Principal = {
      user: { id: row.id, email: row.email, role: row.role, sessionId },
      status: row.status,
      revoked: row.revokedAt !== null,
      expiresAt: row.expiresAt,
      lastSeenAt: row.lastSeenAt,
      loadedAt: Date.now(),
    };
    cache.set(sessionId, principal);
    if (cache.size > 50_000) cache.delete(cache.keys().next().value!);
    return principal;
  }

  function touch(principal: Principal): void {
    const now = clock.now();
    if (now.getTime() - principal.lastSeenAt.getTime() < LAST_SEEN_RESOLUTION_MS) return;
    principal.lastSeenAt = now;
    void database.db
      .update(deviceSessions)
      .set({ lastSeenAt: now })
      .where(eq(deviceSessions.id, principal.user.sessionId))
      .catch(() => {
        // Last-seen is informational; a failed write must not fail the request.
      });
  }

  const requireUser: Guard = async (request, reply) => {
    const token = bearerToken(request);
    if (!token) throw unauthenticated();
    const claims = await tokens.verifyAccess(token);
    if (!claims) throw new AppError('unauthenticated', 'Invalid or expired token', { headers: { 'www-authenticate': 'Bearer error="invalid_token"' } });
    const principal = await loadPrincipal(claims.sid, claims.sub);
    // Suspension and deletion also revoke the sessions; the account's status is the better answer.
    if (principal && principal.status !== 'active') throw forbidden(`User account is ${principal.status}`);
    if (!principal || principal.revoked || principal.expiresAt <= clock.now()) {
      throw new AppError('unauthenticated', 'Session has been revoked or has expired', {
        headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
      });
    }
    request.user = principal.user;
    void reply.header('cache-control', 'no-store');
    touch(principal);
  };

  const requireAdmin: Guard = async (request, reply) => {
    await requireUser(request, reply);
    if (request.user?.role !== 'admin') throw forbidden('Admin role required');
  };

  return {
    requireUser,
    requireAdmin,
    invalidate(userId) {
      if (!userId) return cache.clear();
      for (const [sid, principal] of cache) if (principal.user.id === userId) cache.delete(sid);
    },
  };
}
