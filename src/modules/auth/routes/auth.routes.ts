import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentUser, type Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import { Account, ChangePasswordBody, LoginBody, RefreshBody, RegisterBody, Success, TokenPair } from '../auth.schemas.ts';
import type { AuthService } from '../auth.service.ts';
import type { PasswordService } from '../password.service.ts';

const tags = ['auth'];

export function authRoutes(deps: { service: AuthService; passwords: PasswordService; guards: Guards }): FastifyPluginAsyncTypebox {
  const { service, passwords, guards } = deps;
  return async function routes(app) {
    const client = (request: { ip: string; headers: Record<string, unknown> }) => ({
      ip: request.ip,
      userAgent: typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'] : undefined,
    });

    app.post(
      '/api/auth/register',
      {
        schema: {
          tags,
          operationId: 'registerAccount',
          summary: 'Create an account (role user, tier free)',
          description:
            'Creates an active account with role `user` and tier `free`; fields the body does not declare (a role, a status) are ignored. E-mail addresses are case-insensitive. 403 when sign-up is turned off (`ALLOW_SIGNUP=false`), 409 when the e-mail is taken, 429 with `Retry-After` past `SIGNUP_LIMIT_PER_HOUR` attempts from one client address.',
          body: RegisterBody,
          response: { 201: Account, ...errorResponses(403, 409, 429) },
        },
      },
      async (request, reply) => reply.code(201).send(await service.register(request.body, client(request))),
    );

    app.post(
      '/api/auth/login',
      {
        schema: {
          tags,
          operationId: 'login',
          summary: 'Exchange e-mail and password for an access and a refresh token',
          description:
            'Creates a device session (user agent, IP, last seen). The access token is a JWT (HS256, about 15 minutes, claims `sub`, `role`, `sid`); the refresh token is single-use. Throttled in fixed 15-minute windows, counted before the password is checked: 20 attempts per client address (an IPv6 /64; behind `TRUST_PROXY`, the forwarded client), 5 per account from one address, 100 per account from everywhere; a successful login gives its attempt back. Over a limit: 429 with `Retry-After`. Wrong e-mail or password: 401; suspended or deleted account: 403.',
          body: LoginBody,
          response: { 200: TokenPair, ...errorResponses(401, 403, 429) },
        },
      },
      async (request, reply) => {
        void reply.header('cache-control', 'no-store');
        return service.login(request.body.email, request.body.password, client(request));
      },
    );

    app.post(
      '/api/auth/refresh',
      {
        schema: {
          tags,
          operationId: 'refreshTokens',
          summary: 'Rotate a refresh token; presenting a used one again revokes the session',
          description:
            'Answers a new access token and a new refresh token; the presented one is spent. Presenting a spent refresh token again revokes the whole session (all its tokens stop working). 401 for an unknown, spent, revoked or expired token; 403 when the account is no longer active.',
          body: RefreshBody,
          response: { 200: TokenPair, ...errorResponses(401, 403) },
        },
      },
      async (request, reply) => {
        void reply.header('cache-control', 'no-store');
        return service.refresh(request.body.refresh_token);
      },
    );

    app.post(
      '/api/auth/logout',
      {
        onRequest: guards.requireUser,
        schema: {
          tags,
          operationId: 'logout',
          summary: 'Revoke the current session',
          description: 'Ends the session of the presented access token: its refresh token stops working at once, its access tokens within about 2 seconds on every instance.',
          security: bearerSecurity,
          response: { 200: Success, ...errorResponses(401, 403) },
        },
      },
      async (request) => {
        const user = currentUser(request);
        await service.logout(user.id, user.sessionId, client(request));
        return { success: true };
      },
    );

    app.post(
      '/api/auth/password',
      {
        onRequest: guards.requireUser,
        schema: {
          tags,
          operationId: 'changePassword',
          summary: 'Change your own password; your other sessions are signed out',
          description:
            'Checks `current_password`, sets `new_password` (8 to 128 characters, as at registration, and different from the current one: 422 otherwise), revokes every other session of the account (this one stays signed in) and voids pending reset links. A wrong current password answers 400 and counts towards a limit of 5 per 15 minutes (429 with `Retry-After` beyond it). Neither password is ever logged or returned.',
          security: bearerSecurity,
          body: ChangePasswordBody,
          response: { 200: Success, ...errorResponses(400, 401, 403, 429) },
        },
      },
      async (request) => {
        const user = currentUser(request);
        return passwords.changePassword({ id: user.id, sessionId: user.sessionId }, request.body, client(request));
      },
    );

    app.get(
      '/api/auth/me',
      {
        onRequest: guards.requireUser,
        schema: {
          tags,
          operationId: 'getCurrentUser',
          summary: 'The signed-in account',
          description: 'Every authenticated request re-checks the account and session; a suspension or logout takes effect within about 2 seconds.',
          security: bearerSecurity,
          response: { 200: Account, ...errorResponses(401, 403) },
        },
      },
      async (request) => service.me(currentUser(request).id),
    );
  };
}
