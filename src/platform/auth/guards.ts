// Bearer-token guards. They run in onRequest, before validation, as FastAPI runs security first.
// Every request re-checks the user's status and the session (cached for a few seconds), so a
// suspension or a logout takes effect at once, not when the access token expires.
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Clock } from '../clock.ts';
import { AppError, forbidden, unauthenticated } from '../http/errors.ts';
import {
  EXTERNAL_ALGORITHMS,
  tokenAlgorithm,
  type ExternalIdentity,
  type ExternalTokenVerifier,
} from './external-tokens.ts';
import { API_TOKEN_PREFIX } from './api-token-format.ts';
import { tokenScopeOf } from './route-scopes.ts';
import { hasFreshSecondFactor, hasSecondFactor } from './second-factor-rules.ts';
import { hashToken, type TokenService } from './tokens.ts';

export interface AuthenticatedUser {
  id: string;
  email: string;
  role: string;
  /** Our device session; null for an external identity provider's token (the provider owns that session). */
  sessionId: string | null;
  twoFactorEnabled: boolean;
  /** Our access token's `auth_time` (seconds) and `amr`: when and how the session last authenticated. */
  authTime?: number;
  amr?: readonly string[];
  /** Set when the request came with an API token (`tpk_…`) rather than a session's access token. */
  apiToken?: { id: string; scopes: readonly string[] };
}

declare module 'fastify' {
  interface FastifyRequest {
    user?: AuthenticatedUser;
  }
  interface FastifyInstance {
    /** The bearer guards, decorated on the root instance by buildApp. */
    readonly guards: Guards;
  }
}

export type Guard = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * Where the guards read who is calling: the identity module's port (src/modules/users), so that no
 * platform code reads its tables.
 */
export interface PrincipalSource {
  /** The session and its account, when the session belongs to that user. */
  bySession(
    sessionId: string,
    userId: string,
  ): Promise<
    | {
        id: string;
        email: string;
        role: string;
        status: string;
        twoFactorEnabled: boolean;
        revokedAt: Date | null;
        expiresAt: Date;
        lastSeenAt: Date;
      }
    | undefined
  >;
  /** The account with this address (an identity provider's token names it by e-mail). */
  /**
   * The account an identity provider's user is: linked by (issuer, subject), or by a verified e-mail
   * address the first time; `unverified` for an unlinked identity whose address the provider has not
   * verified, `linked_elsewhere` when the account holds another identity of that provider.
   */
  byExternalIdentity(
    identity: ExternalIdentity,
  ): Promise<
    | { id: string; email: string; role: string; status: string; twoFactorEnabled: boolean }
    | 'unverified'
    | 'linked_elsewhere'
    | undefined
  >;
  /** Records that the session was seen. */
  touch(sessionId: string, at: Date): Promise<void>;
  /** The API token with this SHA-256 and its owner. */
  byApiToken(tokenHash: string): Promise<
    | {
        tokenId: string;
        scopes: string[];
        expiresAt: Date;
        revokedAt: Date | null;
        lastUsedAt: Date | null;
        id: string;
        email: string;
        role: string;
        status: string;
        twoFactorEnabled: boolean;
      }
    | undefined
  >;
  /** Records that the API token was used (at most once a minute). */
  touchApiToken(tokenId: string, at: Date): Promise<void>;
}

export interface Guards {
  requireUser: Guard;
  requireAdmin: Guard;
  /**
   * requireUser, and for an account with two-factor on, a second factor presented by this session
   * within STEP_UP_MAX_AGE_MINUTES (its access token's `amr` and `auth_time`); otherwise 403
   * "Second factor required" (decision 143). For what moves money or guards the account.
   */
  requireStepUp: Guard;
  /**
   * requireStepUp's second-factor check alone, for a request requireUser has already let in
   * (`request.user` set): the principal is not read again (an API token's is a database read; decision 440).
   */
  assertSteppedUp(request: FastifyRequest): void;
  /**
   * requireAdmin with requireStepUp's second factor: for an admin's changes to another account
   * (role, status, two-factor reset, password reset, bulk actions; decision 202).
   */
  requireAdminStepUp: Guard;
  /**
   * For public routes that do more for some callers: sets `request.user` when a valid bearer token
   * comes with the request, and lets every other request through as anonymous.
   */
  identify: Guard;
  /** Drops cached principals so the next request re-reads them (after a status or role change). */
  invalidate(userId?: string): void;
}

interface Principal {
  user: AuthenticatedUser & { sessionId: string };
  status: string;
  revoked: boolean;
  expiresAt: Date;
  lastSeenAt: Date;
  /** When it was read, by the app's clock (epoch ms): the cache ages by that clock. */
  loadedAt: number;
}

/** How long a principal is cached, by the app's clock (a test's clock that stands still keeps it). */
const PRINCIPAL_TTL_MS = 2_000;
const LAST_SEEN_RESOLUTION_MS = 60_000;

/** The user behind an authenticated route; the guard guarantees it is there. */
export function currentUser(request: FastifyRequest): AuthenticatedUser {
  if (!request.user) throw unauthenticated();
  return request.user;
}

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const [scheme, token] = header.split(' ');
  if (scheme?.toLowerCase() !== 'bearer' || !token) return undefined;
  return token.trim();
}

interface ExternalPrincipal {
  user: AuthenticatedUser;
  status: string;
  loadedAt: number;
}

const invalidToken = (detail: string) =>
  new AppError('unauthenticated', detail, { headers: { 'www-authenticate': 'Bearer error="invalid_token"' } });

interface GuardSettings {
  /** Roles whose users must have two-factor on to use anything but /api/auth/* (REQUIRE_2FA_ROLES). */
  requireTwoFactorRoles: readonly string[];
  /** How recent a session's second factor must be for requireStepUp (STEP_UP_MAX_AGE_MINUTES). */
  stepUpMaxAgeMinutes: number;
}

export function createGuards(deps: {
  tokens: TokenService;
  external?: ExternalTokenVerifier;
  principals: PrincipalSource;
  clock: Clock;
  settings?: GuardSettings;
}): Guards {
  const { tokens, external, principals, clock } = deps;
  const requireTwoFactorRoles = deps.settings?.requireTwoFactorRoles ?? [];
  const stepUpMaxAgeMs = (deps.settings?.stepUpMaxAgeMinutes ?? 10) * 60_000;
  const cache = new Map<string, Principal>();
  const externalCache = new Map<string, ExternalPrincipal>();

  async function loadPrincipal(sessionId: string, userId: string): Promise<Principal | undefined> {
    const cached = cache.get(sessionId);
    if (cached && cached.user.id === userId && clock.now().getTime() - cached.loadedAt < PRINCIPAL_TTL_MS)
      return cached;
    const row = await principals.bySession(sessionId, userId);
    if (!row) {
      cache.delete(sessionId);
      return undefined;
    }
    const principal: Principal = {
      user: { id: row.id, email: row.email, role: row.role, sessionId, twoFactorEnabled: row.twoFactorEnabled },
      status: row.status,
      revoked: row.revokedAt !== null,
      expiresAt: row.expiresAt,
      lastSeenAt: row.lastSeenAt,
      loadedAt: clock.now().getTime(),
    };
    cache.set(sessionId, principal);
    if (cache.size > 50_000) cache.delete(cache.keys().next().value!);
    return principal;
  }

  function touch(principal: Principal): void {
    const now = clock.now();
    if (now.getTime() - principal.lastSeenAt.getTime() < LAST_SEEN_RESOLUTION_MS) return;
    principal.lastSeenAt = now;
    void principals.touch(principal.user.sessionId, now).catch(() => {
      // Last-seen is informational; a failed write must not fail the request.
    });
  }

  /** Our own token: its device session must be live. */
  async function sessionUser(token: string): Promise<AuthenticatedUser> {
    const claims = await tokens.verifyAccess(token);
    if (!claims) throw invalidToken('Invalid or expired token');
    const principal = await loadPrincipal(claims.sid, claims.sub);
    // Suspension and deletion also revoke the sessions; the account's status is the better answer.
    if (principal && principal.status !== 'active') throw forbidden(`User account is ${principal.status}`);
    if (!principal || principal.revoked || principal.expiresAt <= clock.now()) {
      throw invalidToken('Session has been revoked or has expired');
    }
    touch(principal);
    return { ...principal.user, authTime: claims.auth_time, amr: claims.amr };
  }

  /**
   * An API token: read from the database on every request, so a revocation or the owner's
   * suspension holds at once on every instance (decision 144).
   */
  async function apiTokenUser(token: string): Promise<AuthenticatedUser> {
    const row = await principals.byApiToken(hashToken(token));
    const now = clock.now();
    // The account's status first: a suspension also revokes the tokens (decision 201), and says why better.
    if (row && row.status !== 'active') throw forbidden(`User account is ${row.status}`);
    if (!row || row.revokedAt || row.expiresAt <= now) throw invalidToken('Invalid, revoked or expired API token');
    if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_SEEN_RESOLUTION_MS) {
      void principals.touchApiToken(row.tokenId, now).catch(() => {
        // Last use is informational; a failed write must not fail the request.
      });
    }
    return {
      id: row.id,
      email: row.email,
      role: row.role,
      sessionId: null,
      twoFactorEnabled: row.twoFactorEnabled,
      apiToken: { id: row.tokenId, scopes: row.scopes },
    };
  }

  /** An identity provider's token: the account linked to its user; its status and role are ours. */
  async function externalUser(verifier: ExternalTokenVerifier, token: string): Promise<AuthenticatedUser> {
    const identity = await verifier.verify(token);
    if (!identity) throw invalidToken('Invalid or expired token');
    const key = `${identity.issuer}\n${identity.subject}`;
    let principal = externalCache.get(key);
    if (!principal || clock.now().getTime() - principal.loadedAt >= PRINCIPAL_TTL_MS) {
      const row = await principals.byExternalIdentity(identity);
      if (row === 'unverified') throw invalidToken('The identity provider has not verified this e-mail address');
      if (row === 'linked_elsewhere') throw invalidToken('This account is linked to another identity of this provider');
      if (!row) {
        externalCache.delete(key);
        throw invalidToken('No account matches this identity');
      }
      principal = {
        user: { id: row.id, email: row.email, role: row.role, sessionId: null, twoFactorEnabled: row.twoFactorEnabled },
        status: row.status,
        loadedAt: clock.now().getTime(),
      };
      externalCache.set(key, principal);
      if (externalCache.size > 50_000) externalCache.delete(externalCache.keys().next().value!);
    }
    if (principal.status !== 'active') throw forbidden(`User account is ${principal.status}`);
    return principal.user;
  }

  const requireUser: Guard = async (request, reply) => {
    const token = bearerToken(request);
    if (!token) throw unauthenticated();
    // An API token is not a JWS: its header is not decoded (a refused decode throws, at a cost on every order).
    const user = token.startsWith(API_TOKEN_PREFIX)
      ? await apiTokenUser(token)
      : external !== undefined &&
          (EXTERNAL_ALGORITHMS as readonly (string | undefined)[]).includes(tokenAlgorithm(token))
        ? await externalUser(external, token)
        : await sessionUser(token);
    request.user = user;
    void reply.header('cache-control', 'no-store');
    if (user.apiToken) {
      const scope = tokenScopeOf(request.routeOptions.config);
      if (!scope)
        throw forbidden(
          'API tokens cannot be used for this operation (signing in, passwords, two-factor ' +
            'and API tokens need a session)',
        );
      if (!user.apiToken.scopes.includes(scope)) throw forbidden(`This API token lacks the scope ${scope}`);
    }
    // Where two-factor is required, the account can do nothing but enroll (decision 142).
    if (
      !hasSecondFactor(user) &&
      requireTwoFactorRoles.includes(user.role) &&
      !(request.routeOptions.url ?? request.url).startsWith('/api/auth/')
    ) {
      throw forbidden('Two-factor authentication required');
    }
  };

  const requireAdmin: Guard = async (request, reply) => {
    await requireUser(request, reply);
    if (request.user?.role !== 'admin') throw forbidden('Admin role required');
  };

  /** The step-up check of a request whose user is known (decision 143). */
  function assertSteppedUp(request: FastifyRequest): void {
    const user = request.user!;
    // An API token's scope is its authorization; making it took a step-up (decision 144).
    if (!hasSecondFactor(user) || user.apiToken) return;
    if (!hasFreshSecondFactor(user, clock.now(), stepUpMaxAgeMs)) {
      throw new AppError('forbidden', 'Second factor required', {
        headers: { 'www-authenticate': 'Bearer error="insufficient_user_authentication"' },
      });
    }
  }

  const requireStepUp: Guard = async (request, reply) => {
    await requireUser(request, reply);
    assertSteppedUp(request);
  };

  const requireAdminStepUp: Guard = async (request, reply) => {
    await requireAdmin(request, reply);
    assertSteppedUp(request);
  };

  const identify: Guard = async (request, reply) => {
    if (!bearerToken(request)) return;
    try {
      await requireUser(request, reply);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      request.user = undefined;
    }
  };

  return {
    requireUser,
    requireAdmin,
    requireStepUp,
    assertSteppedUp,
    requireAdminStepUp,
    identify,
    invalidate(userId) {
      if (!userId) {
        cache.clear();
        externalCache.clear();
        return;
      }
      for (const [sid, principal] of cache) if (principal.user.id === userId) cache.delete(sid);
      for (const [email, principal] of externalCache) if (principal.user.id === userId) externalCache.delete(email);
    },
  };
}

/**
 * Documents what a route's guard requires, so the OpenAPI document cannot drift from the code: a
 * route run behind `requireAdmin` documents `bearerAuth` with the role `admin` (OpenAPI 3.1 lets a
 * non-OAuth scheme list required roles), one behind `requireUser` plain `bearerAuth`. Routes with
 * another guard (a stream ticket, `identify`) document their own.
 */
export function documentGuard(
  route: RouteOptions,
  guards: Pick<Guards, 'requireUser' | 'requireAdmin' | 'requireStepUp' | 'requireAdminStepUp'>,
): void {
  const hooks = [route.onRequest].flat();
  const role =
    hooks.includes(guards.requireAdmin) || hooks.includes(guards.requireAdminStepUp)
      ? ['admin']
      : hooks.includes(guards.requireUser) || hooks.includes(guards.requireStepUp)
        ? []
        : undefined;
  if (role) route.schema = { ...route.schema, security: [{ bearerAuth: role }] };
  // A route behind requireStepUp says so: a machine-readable flag beside its security (decision 143).
  if (hooks.includes(guards.requireStepUp) || hooks.includes(guards.requireAdminStepUp))
    route.schema = { ...route.schema, 'x-step-up': true } as typeof route.schema;
  // Every operation that takes a bearer token names the scope an API token needs for it, as the
  // route declares it, or none: tokens may not call it (decisions 144, 235).
  const security = (route.schema as { security?: Record<string, unknown>[] } | undefined)?.security;
  if (!security?.some((requirement) => 'bearerAuth' in requirement)) return;
  if ([route.method].flat().every((method) => method === 'HEAD')) return;
  const scope = tokenScopeOf(route.config);
  route.schema = { ...route.schema, 'x-scopes': scope ? [scope] : [] } as typeof route.schema;
}
