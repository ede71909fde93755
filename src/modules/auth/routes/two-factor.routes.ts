// Two-factor with an authenticator app (TOTP): finishing a sign-in, enrolling, turning it off and
// the step-up (decision 143). Passkeys have their own routes (passkeys.routes.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentUser, type Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import {
  RecoveryCodes,
  Success,
  TokenPair,
  TwoFactorCodeBody,
  TwoFactorDisableBody,
  TwoFactorSetup,
  TwoFactorSetupBody,
  TwoFactorVerifyBody,
} from '../auth.schemas.ts';
import type { AuthService } from '../auth.service.ts';
import type { TwoFactorService } from '../two-factor.service.ts';
import { recoveryCodesWire, tokenPairWire, twoFactorSetupWire } from '../auth.wire.ts';
import { signedIn, signInClientOf, tags } from './auth-requests.ts';

export function twoFactorRoutes(deps: {
  service: AuthService;
  twoFactor: TwoFactorService;
  guards: Guards;
}): FastifyPluginAsyncTypebox {
  const { service, twoFactor, guards } = deps;
  return async function routes(app) {
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
            'whatever the address, or per device for a client with the device cookie `tp_device` of an ' +
            'earlier complete sign-in to the account: past 5 wrong ones in 15 minutes or 50 in a day, 429 with `Retry-After` and ' +
            'the owner is mailed; an unknown, spent or expired `mfa_token`: 401; both or neither of ' +
            '`code` and `recovery_code`: 422.',
          body: TwoFactorVerifyBody,
          response: { 200: TokenPair, ...errorResponses(401, 403, 429) },
        },
      },
      async (request, reply) =>
        tokenPairWire(
          signedIn(request, reply, await service.verifySecondFactor(request.body, signInClientOf(request))),
        ),
    );

    app.post(
      '/api/auth/2fa/setup',
      {
        onRequest: guards.requireUser,
        config: { tokenScope: 'refused' },
        schema: {
          tags,
          operationId: 'setUpTwoFactor',
          summary: 'Start enrolling a TOTP authenticator',
          description:
            'Checks `password` and answers a new TOTP secret (RFC 6238: SHA-1, 6 digits, 30 seconds) as ' +
            'base32, as an `otpauth://` URL and as a QR code (SVG). Two-factor is not on until POST ' +
            '/api/auth/2fa/enable confirms a code; calling setup again replaces a pending secret. The ' +
            'secret is stored sealed (AES-256-GCM). A wrong password: 400, counted (5 per 15 minutes, then ' +
            '429); the authenticator app on already: 409. On an account whose second factor is a passkey, a ' +
            'second factor within `STEP_UP_MAX_AGE_MINUTES` is needed first (403 "Second factor required").',
          security: bearerSecurity,
          body: TwoFactorSetupBody,
          response: { 200: TwoFactorSetup, ...errorResponses(400, 401, 403, 409, 429) },
        },
      },
      async (request, reply) => {
        void reply.header('cache-control', 'no-store');
        const user = currentUser(request);
        return twoFactorSetupWire(
          await twoFactor.setup(request.body, { id: user.id, sessionId: user.sessionId }, signInClientOf(request), () =>
            guards.assertSteppedUp(request),
          ),
        );
      },
    );

    app.post(
      '/api/auth/2fa/enable',
      {
        onRequest: guards.requireUser,
        config: { tokenScope: 'refused' },
        schema: {
          tags,
          operationId: 'enableTwoFactor',
          summary: 'Turn two-factor on with a code from the authenticator; answers the recovery codes once',
          description:
            'Confirms the pending secret of POST /api/auth/2fa/setup with a current `code` and turns ' +
            'two-factor authentication on (`twoFactorEnabled` true); answers ten recovery codes, shown this ' +
            'once (only their hashes are kept). A wrong or reused code: 422 on `code`, counted as at step-up: per ' +
            "session (5 in 15 minutes, 10 a day) and across the account's sessions (30 a day), apart from the " +
            "sign-in's codes (429 beyond them). No pending setup, or two-factor on already: 409.",
          security: bearerSecurity,
          body: TwoFactorCodeBody,
          response: { 200: RecoveryCodes, ...errorResponses(401, 403, 409, 429) },
        },
      },
      async (request, reply) => {
        void reply.header('cache-control', 'no-store');
        const user = currentUser(request);
        return recoveryCodesWire(
          await twoFactor.enable(request.body, { id: user.id, sessionId: user.sessionId }, signInClientOf(request)),
        );
      },
    );

    app.post(
      '/api/auth/2fa/disable',
      {
        onRequest: guards.requireUser,
        config: { tokenScope: 'refused' },
        schema: {
          tags,
          operationId: 'disableTwoFactor',
          summary: 'Turn two-factor off; your other sessions are signed out',
          description:
            'Needs `password` and either `code` (a current TOTP code) or `recovery_code`. Removes the ' +
            'secret and the recovery codes and revokes every other session of the account. A wrong ' +
            'password: 400, counted per session (5 per 15 minutes, then 429); a wrong code: 422 on `code` (or ' +
            '`recovery_code`), counted as at step-up: per session (5 in 15 minutes, 10 a day) and across the ' +
            "account's sessions (30 a day), apart from the sign-in's codes (429 beyond them). Two-factor not " +
            'on: 409.',
          security: bearerSecurity,
          body: TwoFactorDisableBody,
          response: { 200: Success, ...errorResponses(400, 401, 403, 409, 429) },
        },
      },
      async (request) => {
        const user = currentUser(request);
        await twoFactor.disable(request.body, { id: user.id, sessionId: user.sessionId }, signInClientOf(request));
        return { success: true };
      },
    );

    app.post(
      '/api/auth/2fa/step-up',
      {
        onRequest: guards.requireUser,
        config: { tokenScope: 'refused' },
        schema: {
          tags,
          operationId: 'stepUpSecondFactor',
          summary: 'Present a second factor again; answers a fresh token pair',
          description:
            'For what moves money or guards the account (exchange credentials, the password, API tokens): with ' +
            'two-factor on, those need a second factor presented within `STEP_UP_MAX_AGE_MINUTES` (default ' +
            '10), which access tokens carry as `auth_time` and `amr` (kept through refresh). A right current ' +
            '`code` marks this session and answers a new token pair whose access token carries it; its refresh ' +
            'token replaces the one the session held, which is spent (presented again, it ends the session). A wrong or ' +
            "reused code: 401, counted per session (5 in 15 minutes, 10 a day) and across the account's sessions " +
            "(30 a day), apart from the sign-in's codes (429 beyond them); two-factor not on: 409; an " +
            "identity provider's token (no session of ours): 403.",
          security: bearerSecurity,
          body: TwoFactorCodeBody,
          response: { 200: TokenPair, ...errorResponses(401, 403, 409, 429) },
        },
      },
      async (request, reply) => {
        void reply.header('cache-control', 'no-store');
        return tokenPairWire(await service.stepUp(currentUser(request), request.body, signInClientOf(request)));
      },
    );
  };
}
