import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { currentUser, type Guards } from '../../../platform/auth/guards.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import { TokenPair } from '../auth.schemas.ts';
import { tokenPairWire } from '../auth.wire.ts';
import type { PasskeysManagement } from '../passkeys-manage.service.ts';
import {
  Passkey,
  PasskeyIdParams,
  PasskeyList,
  PasskeyOptions,
  PasskeyOptionsBody,
  PasskeyRenameBody,
  PasskeyVerifyBody,
} from '../passkeys.schemas.ts';
import type { PasskeyActor, PasskeyCeremonies } from '../passkeys.service.ts';
import { passkeyWire } from '../passkeys.wire.ts';
import { deviceCookieHeader } from '../device-cookie.ts';
import { clientOf, signInClientOf, tags } from './auth-requests.ts';

/**
 * The signed-in caller of a ceremony: registration needs the bearer (and, on an account with a second
 * factor, a fresh one: a stolen access token must not add a passkey of its own), a step-up the bearer;
 * sign-ins none. The purpose is in the body, so the guard runs here rather than before validation.
 */
export async function ceremonyActor(
  guards: Pick<Guards, 'requireUser' | 'requireStepUp'>,
  purpose: string | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<PasskeyActor | undefined> {
  // The operation is public (sign-ins); these purposes are not, and say so rather than "Not authenticated".
  if ((purpose === 'register' || purpose === 'step-up') && !request.headers.authorization)
    throw new AppError('unauthenticated', `A passkey ${purpose} needs the bearer token of a signed-in session`, {
      headers: { 'www-authenticate': 'Bearer' },
    });
  if (purpose === 'register') await guards.requireStepUp(request, reply);
  else if (purpose === 'step-up' || request.headers.authorization) await guards.requireUser(request, reply);
  if (!request.user) return undefined;
  return { id: request.user.id, sessionId: request.user.sessionId };
}

export function passkeysRoutes(deps: {
  ceremonies: PasskeyCeremonies;
  management: PasskeysManagement;
  guards: Guards;
}): FastifyPluginAsyncTypebox {
  const { ceremonies, management, guards } = deps;
  return async function routes(app) {
    app.post(
      '/api/auth/passkeys/options',
      {
        config: { tokenScope: 'refused' },
        schema: {
          tags,
          operationId: 'passkeyOptions',
          summary: 'Start a passkey ceremony: register, sign in, second factor or step-up',
          description:
            'Answers the WebAuthn options for the browser and a `challenge_token` (single use, bound to the ' +
            'purpose and the account, 5 minutes; stored only as its hash). `register` needs the bearer and, on ' +
            'an account with a second factor, a fresh one (403 "Second factor required"); `step-up` needs the ' +
            'bearer: 401 without. `login` names no credential (every passkey here is discoverable), whatever ' +
            '`email` says: with it, only that account’s passkeys complete the sign-in; without it, any passkey ' +
            'of this site; `mfa` needs the `mfa_token` of a password sign-in (401 when unknown or expired). No passkey ' +
            'for `mfa` or `step-up`: 409. 30 options per minute per client address (429).',
          security: [...bearerSecurity, {}],
          body: PasskeyOptionsBody,
          response: { 200: PasskeyOptions, ...errorResponses(401, 403, 409, 429) },
        },
      },
      async (request, reply) => {
        const actor = await ceremonyActor(guards, request.body.purpose, request, reply);
        void reply.header('cache-control', 'no-store');
        const answer = await ceremonies.options(request.body, actor, clientOf(request));
        return { challenge_token: answer.challengeToken, options: answer.options };
      },
    );

    app.post(
      '/api/auth/passkeys/verify',
      {
        config: { tokenScope: 'refused' },
        schema: {
          tags,
          operationId: 'passkeyVerify',
          summary: "Finish a passkey ceremony with the browser's credential",
          description:
            "`response` is the browser's `credential.toJSON()`. The challenge is spent whatever the outcome. " +
            '`register`: 201 and the passkey (two-factor is on from now); a credential that does not verify: ' +
            '400; one registered already: 409. `login` and `mfa`: the token pair login answers, `amr` naming ' +
            "`webauthn`, and set the device cookie `tp_device` as a password sign-in does (the password's " +
            "attempt of an `mfa` sign-in is given back); `step-up`: a new pair with a fresh `auth_time`, whose refresh token replaces the session's (spent). An unknown, used or expired " +
            '`challenge_token`, or an assertion that does not verify (replayed, tampered, another origin or RP ' +
            'ID, no user verification, a counter that went backwards): 401, audited, and counted in the login ' +
            'throttle as a wrong code is (429 beyond it).',
          security: [...bearerSecurity, {}],
          body: PasskeyVerifyBody,
          response: { 200: TokenPair, 201: Passkey, ...errorResponses(400, 401, 403, 409, 429) },
        },
      },
      async (request, reply) => {
        const actor = await ceremonyActor(guards, undefined, request, reply);
        void reply.header('cache-control', 'no-store');
        const outcome = await ceremonies.verify(request.body, actor, signInClientOf(request));
        if ('registered' in outcome) return reply.code(201).send(passkeyWire(outcome.registered));
        // A sign-in sets its device cookie, as a password's does (decisions 196, 730).
        if (outcome.tokens.device)
          void reply.header('set-cookie', deviceCookieHeader(outcome.tokens.device, request.protocol === 'https'));
        return tokenPairWire(outcome.tokens);
      },
    );

    app.get(
      '/api/auth/passkeys',
      {
        onRequest: guards.requireUser,
        config: { tokenScope: 'refused' },
        schema: {
          tags,
          operationId: 'listPasskeys',
          summary: 'Your passkeys',
          description: 'Oldest first, with when each was last used.',
          security: bearerSecurity,
          response: { 200: PasskeyList, ...errorResponses(401, 403) },
        },
      },
      async (request) => (await management.list(currentUser(request).id)).map(passkeyWire),
    );

    app.patch(
      '/api/auth/passkeys/:passkey_id',
      {
        onRequest: guards.requireUser,
        config: { tokenScope: 'refused' },
        schema: {
          tags,
          operationId: 'renamePasskey',
          summary: 'Rename a passkey',
          description: "404 for a passkey that is not yours (another user's included).",
          security: bearerSecurity,
          params: PasskeyIdParams,
          body: PasskeyRenameBody,
          response: { 200: Passkey, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) =>
        passkeyWire(
          await management.rename(
            currentUser(request).id,
            request.params.passkey_id,
            request.body.name,
            clientOf(request),
          ),
        ),
    );

    app.delete(
      '/api/auth/passkeys/:passkey_id',
      {
        onRequest: guards.requireStepUp,
        config: { tokenScope: 'refused' },
        schema: {
          tags,
          operationId: 'deletePasskey',
          summary: 'Remove a passkey; the last second factor gone, two-factor is off',
          description:
            'Needs a second factor within `STEP_UP_MAX_AGE_MINUTES` (403 "Second factor required"). 404 for a ' +
            "passkey that is not yours (another user's included).",
          security: bearerSecurity,
          params: PasskeyIdParams,
          response: { 204: Type.Null({ description: 'Removed.' }), ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        await management.remove(currentUser(request).id, request.params.passkey_id, clientOf(request));
        return reply.code(204).send(null);
      },
    );
  };
}
