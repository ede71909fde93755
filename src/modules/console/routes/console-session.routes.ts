// The console's session (decision 160): the same sign-in as /api/auth, but the refresh token goes
// into an HttpOnly, SameSite=Strict cookie on /api/console/session and never into a script's reach; the
// answer holds only the access token, which the console keeps in memory.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { currentUser, type Guards } from '../../../platform/auth/guards.ts';
import { AppError, forbidden, unauthenticated } from '../../../platform/http/errors.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import {
  type AuthService,
  deviceCookieHeader,
  type IssuedTokens,
  LoginBody,
  mfaRequiredWire,
  Passkey,
  type PasskeyCeremonies,
  PasskeyVerifyBody,
  passkeyWire,
  readDeviceCookie,
  TwoFactorCodeBody,
  TwoFactorVerifyBody,
} from '../../auth/index.ts';
import { clearedRefreshCookie, readRefreshCookie, refreshCookie, sameOriginRequest } from '../console.domain.ts';
import { ConsoleAccess, ConsoleLoginAnswer, ConsoleSignedOut, CsrfHeaders } from '../console.schemas.ts';

const tags = ['console'];
const CSRF_NOTE =
  ' Needs the header `x-console-request: 1` (422 without it) and, when the browser sends an ' +
  'Origin, this origin (403 otherwise).';

export function consoleSessionRoutes(deps: {
  auth: Pick<AuthService, 'login' | 'verifySecondFactor' | 'refresh' | 'stepUp' | 'logout'>;
  passkeys: Pick<PasskeyCeremonies, 'verify'>;
  guards: Guards;
  refreshTtlSeconds: number;
}): FastifyPluginAsyncTypebox {
  const { auth, passkeys, guards, refreshTtlSeconds } = deps;
  const secure = (request: FastifyRequest) => request.protocol === 'https';
  const client = (request: FastifyRequest) => ({
    ip: request.ip,
    userAgent: typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'] : undefined,
    device: readDeviceCookie(request.headers.cookie),
  });
  const sameOrigin = async (request: FastifyRequest) => {
    if (!sameOriginRequest({ origin: request.headers.origin, host: request.headers.host })) {
      throw forbidden('Cross-site request refused');
    }
  };
  /** Sets the cookie (and a completed sign-in's device cookie, decision 196) and answers the access token only. */
  const issue = (
    request: FastifyRequest,
    reply: FastifyReply,
    tokens: IssuedTokens & { device?: string },
  ): ConsoleAccess => {
    if (tokens.device) void reply.header('set-cookie', deviceCookieHeader(tokens.device, secure(request)));
    void reply.header(
      'set-cookie',
      refreshCookie(tokens.refreshToken, { maxAgeSeconds: refreshTtlSeconds, secure: secure(request) }),
    );
    void reply.header('cache-control', 'no-store');
    return { access_token: tokens.accessToken, token_type: 'bearer', expires_in: tokens.expiresIn };
  };

  return async function routes(app) {
    app.post(
      '/api/console/session/login',
      {
        onRequest: sameOrigin,
        schema: {
          tags,
          operationId: 'consoleSignIn',
          summary: 'Sign in to the console; the refresh token is set as an HttpOnly cookie',
          description:
            'As POST /api/auth/login (same throttle and device cookie, same answers for a wrong password or a ' +
            'suspended account), ' +
            'but the refresh token is set as the cookie `tp_console_refresh` (HttpOnly, SameSite=Strict, ' +
            `Path=/api/console/session) and not answered.${CSRF_NOTE}`,
          headers: CsrfHeaders,
          body: LoginBody,
          response: { 200: ConsoleLoginAnswer, ...errorResponses(401, 403, 429, 503) },
        },
      },
      async (request, reply) => {
        const signIn = await auth.login(request.body.email, request.body.password, client(request));
        if ('mfaToken' in signIn) {
          void reply.header('cache-control', 'no-store');
          return mfaRequiredWire(signIn);
        }
        return issue(request, reply, signIn);
      },
    );

    app.post(
      '/api/console/session/2fa',
      {
        onRequest: sameOrigin,
        schema: {
          tags,
          operationId: 'consoleVerifySecondFactor',
          summary: 'Finish a console sign-in with a TOTP code or a recovery code',
          description:
            'As POST /api/auth/2fa/verify; the refresh token is set as the console ' +
            `cookie and not answered.${CSRF_NOTE}`,
          headers: CsrfHeaders,
          body: TwoFactorVerifyBody,
          response: { 200: ConsoleAccess, ...errorResponses(401, 403, 429) },
        },
      },
      async (request, reply) => issue(request, reply, await auth.verifySecondFactor(request.body, client(request))),
    );

    app.post(
      '/api/console/session/passkey',
      {
        onRequest: sameOrigin,
        config: { tokenScope: 'refused' },
        schema: {
          tags,
          operationId: 'consolePasskey',
          summary: 'Finish a passkey ceremony from the console; a sign-in or step-up sets the console cookie',
          description:
            'As POST /api/auth/passkeys/verify (the options come from POST /api/auth/passkeys/options): a ' +
            'sign-in without a password, a second factor or a step-up answers the access token and sets the ' +
            `refresh token as the console cookie; a registration answers the passkey (201).${CSRF_NOTE}`,
          security: [...bearerSecurity, {}],
          headers: CsrfHeaders,
          body: PasskeyVerifyBody,
          response: { 200: ConsoleAccess, 201: Passkey, ...errorResponses(400, 401, 403, 409, 429) },
        },
      },
      async (request, reply) => {
        // A step-up or registration acts for the signed-in session; a sign-in needs none.
        if (request.headers.authorization) await guards.requireUser(request, reply);
        const actor = request.user ? { id: request.user.id, sessionId: request.user.sessionId } : undefined;
        const outcome = await passkeys.verify(request.body, actor, client(request));
        if ('registered' in outcome) return reply.code(201).send(passkeyWire(outcome.registered));
        return issue(request, reply, outcome.tokens);
      },
    );

    app.post(
      '/api/console/session/refresh',
      {
        onRequest: sameOrigin,
        schema: {
          tags,
          operationId: 'consoleRefresh',
          summary: 'A new access token from the console cookie, which is rotated',
          description:
            'Spends the refresh token in the cookie and sets its successor (as POST /api/auth/refresh: ' +
            'presenting a spent one again revokes the session). No cookie, or one that no longer works: 401, and ' +
            `the cookie is cleared; an account no longer active: 403.${CSRF_NOTE}`,
          headers: CsrfHeaders,
          response: { 200: ConsoleAccess, ...errorResponses(401, 403) },
        },
      },
      async (request, reply) => {
        const token = readRefreshCookie(request.headers.cookie);
        if (!token) {
          void reply.header('set-cookie', clearedRefreshCookie(secure(request)));
          throw unauthenticated('Not signed in');
        }
        try {
          return issue(request, reply, await auth.refresh(token));
        } catch (error) {
          if (error instanceof AppError) void reply.header('set-cookie', clearedRefreshCookie(secure(request)));
          throw error;
        }
      },
    );

    app.post(
      '/api/console/session/step-up',
      {
        onRequest: [sameOrigin, guards.requireUser],
        config: { tokenScope: 'refused' },
        schema: {
          tags,
          operationId: 'consoleStepUp',
          summary: 'Present the second factor again from the console',
          description: `As POST /api/auth/2fa/step-up; the new refresh token replaces the console cookie.${CSRF_NOTE}`,
          security: bearerSecurity,
          headers: CsrfHeaders,
          body: TwoFactorCodeBody,
          response: { 200: ConsoleAccess, ...errorResponses(401, 403, 409, 429) },
        },
      },
      async (request, reply) =>
        issue(request, reply, await auth.stepUp(currentUser(request), request.body, client(request))),
    );

    app.post(
      '/api/console/session/logout',
      {
        onRequest: sameOrigin,
        config: { tokenScope: 'refused' },
        schema: {
          tags,
          operationId: 'consoleSignOut',
          summary: 'Sign out of the console',
          description:
            'Ends the session of the presented access token, when there is a valid one, and clears the console ' +
            `cookie in any case (so a suspended account's console can still sign out).${CSRF_NOTE}`,
          security: [...bearerSecurity, {}],
          headers: CsrfHeaders,
          response: { 200: ConsoleSignedOut, ...errorResponses(403) },
        },
      },
      async (request, reply) => {
        void reply.header('set-cookie', clearedRefreshCookie(secure(request)));
        if (request.headers.authorization) {
          try {
            await guards.requireUser(request, reply);
          } catch {
            // An expired token or an account no longer active: nothing of ours to end, the cookie goes anyway.
          }
          if (request.user) await auth.logout(request.user.id, request.user.sessionId, client(request));
        }
        return { success: true };
      },
    );
  };
}
