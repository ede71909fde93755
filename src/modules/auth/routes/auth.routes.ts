import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { currentUser, type Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import { Type } from 'typebox';
import {
  ApiTokenCreateBody,
  ApiTokenCreated,
  ApiTokenIdParams,
  ApiTokenList,
  ChangePasswordBody,
  LoginAnswer,
  LoginBody,
  RecoveryCodes,
  RefreshBody,
  RegisterBody,
  Success,
  TokenPair,
  TwoFactorCodeBody,
  TwoFactorDisableBody,
  TwoFactorSetup,
  TwoFactorSetupBody,
  TwoFactorVerifyBody,
} from '../auth.schemas.ts';
import type { AuthService, SignIn } from '../auth.service.ts';
import { deviceCookieHeader, readDeviceCookie } from '../device-cookie.ts';
import type { PasswordService } from '../password.service.ts';
import type { TwoFactorService } from '../two-factor.service.ts';
import type { ApiTokensService } from '../api-tokens.service.ts';
import { Account, accountWire } from '../../users/index.ts';
import {
  apiTokenCreatedWire,
  apiTokenWire,
  recoveryCodesWire,
  signInWire,
  tokenPairWire,
  twoFactorSetupWire,
} from '../auth.wire.ts';

const tags = ['auth'];

/** The signed-in account, and which of its second factors is an authenticator app (passkeys: GET /api/auth/passkeys). */
const Me = Type.Object(
  {
    ...Account.properties,
    totpEnabled: Type.Boolean({
      description: 'Whether a TOTP authenticator app is on (`twoFactorEnabled` is also true with a passkey).',
    }),
  },
  { description: 'The signed-in account.' },
);

export function authRoutes(deps: {
  service: AuthService;
  passwords: PasswordService;
  twoFactor: TwoFactorService;
  apiTokens: ApiTokensService;
  guards: Guards;
}): FastifyPluginAsyncTypebox {
  const { service, passwords, twoFactor, apiTokens, guards } = deps;
  return async function routes(app) {
    const client = (request: FastifyRequest) => ({
      ip: request.ip,
      userAgent: typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'] : undefined,
      device: readDeviceCookie(request.headers.cookie),
    });
    /** A completed sign-in sets its device cookie (decision 196). */
    const signedIn = <T extends SignIn>(request: FastifyRequest, reply: FastifyReply, signIn: T): T => {
      void reply.header('cache-control', 'no-store');
      if ('device' in signIn)
        void reply.header('set-cookie', deviceCookieHeader(signIn.device, request.protocol === 'https'));
      return signIn;
    };

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
            '`SIGNUP_LIMIT_PER_HOUR` attempts from one client address.',
          body: RegisterBody,
          response: { 201: Account, ...errorResponses(403, 409, 429) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(accountWire(await service.register(request.body, client(request)))),
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
            'a limit: 429 with `Retry-After`. Wrong e-mail or password: 401; suspended or deleted account: ' +
            '403. With two-factor ' +
            'authentication on, the answer holds no tokens but `{"mfa_required": true, "mfa_token", ' +
            '"methods"}`: send the token and a code to POST /api/auth/2fa/verify within 5 minutes.',
          body: LoginBody,
          response: { 200: LoginAnswer, ...errorResponses(401, 403, 429) },
        },
      },
      async (request, reply) =>
        signInWire(
          signedIn(request, reply, await service.login(request.body.email, request.body.password, client(request))),
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
        await service.logout(user.id, user.sessionId, client(request));
        return { success: true };
      },
    );

    app.post(
      '/api/auth/password',
      {
        onRequest: guards.requireStepUp,
        schema: {
          tags,
          operationId: 'changePassword',
          summary: 'Change your own password; your other sessions are signed out',
          description:
            'Checks `current_password`, sets `new_password` (8 to 128 characters, as at registration, and ' +
            'different from the current one: 422 otherwise), revokes every other session of the account (this ' +
            'one stays signed in) and voids pending reset links. A wrong current password answers 400 and ' +
            'counts towards a limit of 5 per 15 minutes (429 with `Retry-After` beyond it). Neither password ' +
            'is ever logged or returned. With two-factor on, a second factor within `STEP_UP_MAX_AGE_MINUTES` ' +
            'is needed first (403 "Second factor required"; POST /api/auth/2fa/step-up).',
          security: bearerSecurity,
          body: ChangePasswordBody,
          response: { 200: Success, ...errorResponses(400, 401, 403, 429) },
        },
      },
      async (request) => {
        const user = currentUser(request);
        await passwords.changePassword({ id: user.id, sessionId: user.sessionId }, request.body, client(request));
        return { success: true };
      },
    );

    app.post(
      '/api/auth/2fa/verify',
      {
        schema: {
          tags,
          operationId: 'verifySecondFactor',
          summary: 'Finish a sign-in with a TOTP code or a recovery code',
          description:
            'The `mfa_token` login answered (single use, 5 minutes) and either `code` (the 6-digit TOTP code; ' +
            'one 30-second step either side of now is accepted, and each step once only) or `recovery_code` ' +
            '(each works once; its use is audited and mailed to the owner). Answers the token pair login ' +
            'answers for an account without two-factor. A wrong code: 401; codes are counted per account, ' +
            'whatever the address: past 5 wrong ones in 15 minutes or 50 in a day, 429 with `Retry-After` and ' +
            'the owner is mailed; an unknown, spent or expired `mfa_token`: 401; both or neither of ' +
            '`code` and `recovery_code`: 422.',
          body: TwoFactorVerifyBody,
          response: { 200: TokenPair, ...errorResponses(401, 403, 429) },
        },
      },
      async (request, reply) =>
        tokenPairWire(signedIn(request, reply, await service.verifySecondFactor(request.body, client(request)))),
    );

    app.post(
      '/api/auth/2fa/setup',
      {
        onRequest: guards.requireUser,
        schema: {
          tags,
          operationId: 'setUpTwoFactor',
          summary: 'Start enrolling a TOTP authenticator',
          description:
            'Checks `password` and answers a new TOTP secret (RFC 6238: SHA-1, 6 digits, 30 seconds) as ' +
            'base32, as an `otpauth://` URL and as a QR code (SVG). Two-factor is not on until POST ' +
            '/api/auth/2fa/enable confirms a code; calling setup again replaces a pending secret. The ' +
            'secret is stored sealed (AES-256-GCM). A wrong password: 400, counted (5 per 15 minutes, then ' +
            '429); two-factor already on: 409.',
          security: bearerSecurity,
          body: TwoFactorSetupBody,
          response: { 200: TwoFactorSetup, ...errorResponses(400, 401, 403, 409, 429) },
        },
      },
      async (request, reply) => {
        void reply.header('cache-control', 'no-store');
        const user = currentUser(request);
        return twoFactorSetupWire(
          await twoFactor.setup(request.body, { id: user.id, sessionId: user.sessionId }, client(request)),
        );
      },
    );

    app.post(
      '/api/auth/2fa/enable',
      {
        onRequest: guards.requireUser,
        schema: {
          tags,
          operationId: 'enableTwoFactor',
          summary: 'Turn two-factor on with a code from the authenticator; answers the recovery codes once',
          description:
            'Confirms the pending secret of POST /api/auth/2fa/setup with a current `code` and turns ' +
            'two-factor authentication on (`twoFactorEnabled` true); answers ten recovery codes, shown this ' +
            'once (only their hashes are kept). A wrong or reused code: 422 on `code`, counted per account as at ' +
            'sign-in (5 per 15 ' +
            'minutes, then 429). No pending setup, or two-factor on already: 409.',
          security: bearerSecurity,
          body: TwoFactorCodeBody,
          response: { 200: RecoveryCodes, ...errorResponses(401, 403, 409, 429) },
        },
      },
      async (request, reply) => {
        void reply.header('cache-control', 'no-store');
        const user = currentUser(request);
        return recoveryCodesWire(
          await twoFactor.enable(request.body, { id: user.id, sessionId: user.sessionId }, client(request)),
        );
      },
    );

    app.post(
      '/api/auth/2fa/disable',
      {
        onRequest: guards.requireUser,
        schema: {
          tags,
          operationId: 'disableTwoFactor',
          summary: 'Turn two-factor off; your other sessions are signed out',
          description:
            'Needs `password` and either `code` (a current TOTP code) or `recovery_code`. Removes the ' +
            'secret and the recovery codes and revokes every other session of the account. A wrong ' +
            'password: 400; a wrong code: 422 on `code` (or `recovery_code`); both counted (5 per 15 ' +
            'minutes, then 429). Two-factor not on: 409.',
          security: bearerSecurity,
          body: TwoFactorDisableBody,
          response: { 200: Success, ...errorResponses(400, 401, 403, 409, 429) },
        },
      },
      async (request) => {
        const user = currentUser(request);
        await twoFactor.disable(request.body, { id: user.id, sessionId: user.sessionId }, client(request));
        return { success: true };
      },
    );

    app.post(
      '/api/auth/2fa/step-up',
      {
        onRequest: guards.requireUser,
        schema: {
          tags,
          operationId: 'stepUpSecondFactor',
          summary: 'Present a second factor again; answers a fresh token pair',
          description:
            'For what moves money or guards the account (exchange credentials, the password, API tokens): with ' +
            'two-factor on, those need a second factor presented within `STEP_UP_MAX_AGE_MINUTES` (default ' +
            '10), which access tokens carry as `auth_time` and `amr` (kept through refresh). A right current ' +
            '`code` marks this session and answers a new token pair whose access token carries it. A wrong or ' +
            'reused code: 401, counted per account as at sign-in (429 beyond it); two-factor not on: 409; an ' +
            "identity provider's token (no session of ours): 403.",
          security: bearerSecurity,
          body: TwoFactorCodeBody,
          response: { 200: TokenPair, ...errorResponses(401, 403, 409, 429) },
        },
      },
      async (request, reply) => {
        void reply.header('cache-control', 'no-store');
        return tokenPairWire(await service.stepUp(currentUser(request), request.body, client(request)));
      },
    );

    app.post(
      '/api/auth/tokens',
      {
        onRequest: guards.requireStepUp,
        schema: {
          tags,
          operationId: 'createApiToken',
          summary: 'Make a scoped API token for a script or bot; shown once',
          description:
            'Answers the token (`tpk_…`, for `Authorization: Bearer`) this once; only its hash is kept. It may ' +
            'do what its `scopes` allow and nothing else (403 naming the missing scope), never more than its ' +
            'owner: the admin scopes are for admins (422 otherwise), and a demoted, suspended or deleted ' +
            "owner's tokens stop working at once. Tokens cannot sign in, change passwords, manage two-factor " +
            'or manage tokens. `expires_in_days` 1 to 365, 90 by default. With two-factor on, a second factor ' +
            'within `STEP_UP_MAX_AGE_MINUTES` is needed (403 "Second factor required").',
          security: bearerSecurity,
          body: ApiTokenCreateBody,
          response: { 201: ApiTokenCreated, ...errorResponses(401, 403) },
        },
      },
      async (request, reply) => {
        void reply.header('cache-control', 'no-store');
        const user = currentUser(request);
        return reply.code(201).send(apiTokenCreatedWire(await apiTokens.create(user, request.body, request.ip)));
      },
    );

    app.get(
      '/api/auth/tokens',
      {
        onRequest: guards.requireUser,
        schema: {
          tags,
          operationId: 'listApiTokens',
          summary: 'Your API tokens (never the tokens themselves)',
          description:
            'The tokens that are neither revoked nor expired, oldest first, with when each ' +
            'was last used (to the minute).',
          security: bearerSecurity,
          response: { 200: ApiTokenList, ...errorResponses(401, 403) },
        },
      },
      async (request) => (await apiTokens.list(currentUser(request).id)).map(apiTokenWire),
    );

    app.delete(
      '/api/auth/tokens/:token_id',
      {
        onRequest: guards.requireUser,
        schema: {
          tags,
          operationId: 'revokeApiToken',
          summary: 'Revoke an API token',
          description:
            'The token is refused from now on, on every instance (tokens are checked against the database on ' +
            'each request). 404 for a token that is not yours, or already revoked.',
          security: bearerSecurity,
          params: ApiTokenIdParams,
          response: { 204: Type.Null({ description: 'Revoked.' }), ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        await apiTokens.revoke(currentUser(request).id, request.params.token_id, request.ip);
        return reply.code(204).send(null);
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
          description:
            'Every authenticated request re-checks the account and session; a suspension or logout takes ' +
            'effect within about 2 seconds.',
          security: bearerSecurity,
          response: { 200: Me, ...errorResponses(401, 403) },
        },
      },
      async (request) => {
        const user = await service.me(currentUser(request).id);
        return { ...accountWire(user), totpEnabled: user.totpEnabled };
      },
    );
  };
}
