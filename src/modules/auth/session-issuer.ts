// A signed-in session's tokens: a new device session with its audit row, and a token pair for a
// session (an access token whose claims say how and when it signed in, and a stored refresh token).
import { audit } from './auth.audit.ts';
import { hashToken, newOpaqueToken, type TokenService } from '../../platform/auth/tokens.ts';
import type { Clock } from '../../platform/clock.ts';
import type { DbExecutor } from '../../platform/db/database.ts';
import type { SessionAuthentication, UsersModule, UserRow } from '../users/index.ts';
import type { SecondFactorMethod } from './second-factor.ts';

/** Where a request came from, as a session records it. */
export interface ClientInfo {
  ip?: string;
  userAgent?: string;
}

/** What signing in gives: a short-lived access token and the single-use refresh token. */
export interface IssuedTokens {
  accessToken: string;
  /** Seconds until the access token expires. */
  expiresIn: number;
  refreshToken: string;
}

function authenticationClaims(session: SessionAuthentication): { auth_time: number; amr: string[] } {
  const at = session.secondFactorAt ?? session.createdAt;
  const first = session.firstFactor ?? 'pwd';
  const amr =
    session.secondFactorAt && session.secondFactorMethod
      ? [...new Set([first, 'mfa', session.secondFactorMethod])]
      : [first];
  return { auth_time: Math.floor(at.getTime() / 1000), amr };
}

export function createSessionIssuer(deps: {
  sessions: UsersModule['sessions'];
  tokens: TokenService;
  clock: Clock;
  refreshTokenTtlDays: number;
}) {
  const { sessions, tokens, clock } = deps;

  async function issuePair(
    user: UserRow,
    sessionId: string,
    authentication: SessionAuthentication,
    executor: DbExecutor,
  ): Promise<IssuedTokens> {
    const now = clock.now();
    const refresh = newOpaqueToken();
    await sessions.addRefreshToken(
      {
        sessionId,
        tokenHash: hashToken(refresh),
        expiresAt: new Date(now.getTime() + deps.refreshTokenTtlDays * 86_400_000),
      },
      now,
      executor,
    );
    const access = await tokens.issueAccess({
      sub: user.id,
      role: user.role,
      sid: sessionId,
      ...authenticationClaims(authentication),
    });
    return { accessToken: access.token, expiresIn: access.expiresIn, refreshToken: refresh };
  }

  /**
   * A pair that replaces the live session's refresh token (a step-up's, decision 880): the token held
   * before is spent, so the session keeps one chain. Left live, a copy of it taken earlier would mint
   * access tokens carrying the second factor just presented, and never be seen as reused.
   */
  async function renewPair(
    user: UserRow,
    sessionId: string,
    authentication: SessionAuthentication,
    executor: DbExecutor,
  ): Promise<IssuedTokens> {
    await sessions.spendRefreshTokens(sessionId, clock.now(), executor);
    return issuePair(user, sessionId, authentication, executor);
  }

  /**
   * A new device session for a user who authenticated (with a second factor, when `method` is given;
   * with a passkey and no password, when `firstFactor` is `webauthn`).
   */
  async function startSession(
    user: UserRow,
    client: ClientInfo,
    now: Date,
    executor: DbExecutor,
    method?: SecondFactorMethod,
    firstFactor: 'pwd' | 'webauthn' = 'pwd',
  ): Promise<IssuedTokens> {
    const expiresAt = new Date(now.getTime() + deps.refreshTokenTtlDays * 86_400_000);
    const sessionId = await sessions.start(
      { userId: user.id, userAgent: client.userAgent?.slice(0, 512), ip: client.ip, expiresAt, method, firstFactor },
      now,
      executor,
    );
    const details: Record<string, unknown> = { userAgent: client.userAgent?.slice(0, 200) };
    if (method) details.secondFactor = method;
    if (firstFactor !== 'pwd') details.firstFactor = firstFactor;
    await audit(
      {
        actorId: user.id,
        actorType: 'user',
        action: 'auth.login',
        subjectUserId: user.id,
        targetType: 'session',
        targetId: sessionId,
        ip: client.ip,
        details,
      },
      now,
      executor,
    );
    return issuePair(
      user,
      sessionId,
      { createdAt: now, secondFactorAt: method ? now : null, secondFactorMethod: method ?? null, firstFactor },
      executor,
    );
  }

  return { issuePair, renewPair, startSession };
}
