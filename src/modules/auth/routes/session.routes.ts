// Sessions: an account is made, signed in to, kept signed in and signed out.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentUser, type Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import { LoginAnswer, LoginBody, RefreshBody, RegisterBody, Success, TokenPair } from '../auth.schemas.ts';
import type { AuthService } from '../auth.service.ts';
import { signInWire, tokenPairWire } from '../auth.wire.ts';
import { Account, accountWire } from '../../users/index.ts';
import { signedIn, signInClientOf, tags } from './auth-requests.ts';

export function sessionRoutes(deps: { service: AuthService; guards: Guards }): FastifyPluginAsyncTypebox {
  const { service, guards } = deps;
  return async function routes(app) {
    app.post(
      '/api/auth/register',
      {
        schema: {
          tags,
          operationId: 'registerAccount',
          summary: 'Create an account (role user, tier free)',
          description:
            'Creates an active account with role `user` and tier `free`; fields the body does not declare (a ' +
            'role, a status) are ignored. E-mail addresses are case-insensitive. 403 when sign-up is turned ' +
            'off (`ALLOW_SIGNUP=false`), 409 when the e-mail is taken, 429 with `Retry-After` past ' +
            '`SIGNUP_LIMIT_PER_HOUR` attempts from one client address. While this instance has too many ' +
            'sign-ups waiting for their password hash: 503 with `Retry-After`, nothing made and the attempt ' +
            'not counted.',
          body: RegisterBody,
          response: { 201: Account, ...errorResponses(403, 409, 429, 503) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(accountWire(await service.register(request.body, signInClientOf(request)))),
    );

    app.post(
      '/api/auth/login',
      {
        schema: {
          tags,
          operationId: 'login',
          summary: 'Exchange e-mail and password for an access and a refresh token',
          description:
            'Creates a device session (user agent, IP, last seen). The access token is a JWT (HS256, about 15 ' +
            'minutes, claims `sub`, `role`, `sid`); the refresh token is single-use. Throttled in fixed ' +
            '15-minute windows, counted before the password is checked: 20 attempts per client address (an ' +
            'IPv6 /64; behind `TRUST_PROXY`, the forwarded client), 5 per account from one address, 100 per ' +
            'account from clients that never signed in to it; a client that did (the device cookie ' +
            '`tp_device` a sign-in sets, or an address of an earlier sign-in) is not held to the last, and ' +
            'one with the cookie is counted by it alone (5). A completed sign-in gives its attempt back. Over ' +
            'a limit: 429 with `Retry-After`. While this instance has too many sign-ins waiting for a ' +
            'password check: 503 with `Retry-After`, the password unchecked and the attempt not counted. ' +
            'Wrong e-mail or password: 401; suspended or deleted account: 403. With two-factor ' +
            'authentication on, the answer holds no tokens but `{"mfa_required": true, "mfa_token", ' +
            '"methods"}`: send the token and a code to POST /api/auth/2fa/verify within 5 minutes.',
          body: LoginBody,
          response: { 200: LoginAnswer, ...errorResponses(401, 403, 429, 503) },
        },
      },
      async (request, reply) =>
        signInWire(
          signedIn(
            request,
            reply,
            await service.login(request.body.email, request.body.password, signInClientOf(request)),
          ),
        ),
    );

    app.post(
      '/api/auth/refresh',
      {
        schema: {
          tags,
          operationId: 'refreshTokens',
          summary: 'Rotate a refresh token; presenting a used one again revokes the session',
          description:
            'Answers a new access token and a new refresh token; the presented one is spent. Presenting a ' +
            'spent refresh token again revokes the whole session (all its tokens stop working). 401 for an ' +
            'unknown, spent, revoked or expired token; 403 when the account is no longer active.',
          body: RefreshBody,
          response: { 200: TokenPair, ...errorResponses(401, 403) },
        },
      },
      async (request, reply) => {
        void reply.header('cache-control', 'no-store');
        return tokenPairWire(await service.refresh(request.body.refresh_token));
      },
    );

    app.post(
      '/api/auth/logout',
      {
        onRequest: guards.requireUser,
        config: { tokenScope: 'refused' },
        schema: {
          tags,
          operationId: 'logout',
          summary: 'Revoke the current session',
          description:
            'Ends the session of the presented access token: its refresh token stops working at once, its ' +
            'access tokens within about 2 seconds on every instance.',
          security: bearerSecurity,
          response: { 200: Success, ...errorResponses(401, 403) },
        },
      },
      async (request) => {
        const user = currentUser(request);
        await service.logout(user.id, user.sessionId, signInClientOf(request));
        return { success: true };
      },
    );
  };
}
