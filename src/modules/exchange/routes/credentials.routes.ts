import type { SyncThrottle } from '../sync-throttle.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import type { CredentialsService } from '../credentials.service.ts';
import { tags } from '../common.schemas.ts';
import {
  Credential,
  CredentialCreateBody,
  CredentialDetail,
  CredentialIdParams,
  CredentialList,
  CredentialListQuery,
  CredentialUpdateBody,
  DeleteResult,
  ValidateBody,
  ValidationResult,
} from '../credentials.schemas.ts';
import type { createValidationService } from '../validation.service.ts';
import {
  credentialDeletedWire,
  credentialDetailWire,
  credentialListWire,
  credentialWire,
  validationWire,
} from '../exchange.wire.ts';
import { actorOf } from '../../../platform/auth/actor.ts';

const security = bearerSecurity;

export function credentialsRoutes(deps: {
  credentials: CredentialsService;
  validation: ReturnType<typeof createValidationService>;
  guards: Guards;
  throttle: SyncThrottle;
}): FastifyPluginAsyncTypebox {
  const { credentials, validation, guards, throttle } = deps;
  return async function routes(app) {
    const onRequest = guards.requireUser;

    app.get(
      '/api/exchange/credentials',
      {
        onRequest,
        config: { tokenScope: 'account:read' },
        schema: {
          tags,
          security,
          operationId: 'listCredentials',
          summary: 'Your exchange credentials (never the keys)',
          querystring: CredentialListQuery,
          response: { 200: CredentialList, ...errorResponses(401, 403) },
        },
      },
      async (request) => credentialListWire(await credentials.list(actorOf(request).id, request.query.exchange_name)),
    );

    app.post(
      '/api/exchange/credentials',
      {
        onRequest: guards.requireStepUp,
        config: { tokenScope: 'account:write' },
        schema: {
          tags,
          security,
          operationId: 'createCredential',
          summary: 'Store an exchange API key (encrypted)',
          description:
            'Key, secret and passphrase are sealed with AES-256-GCM and never returned. The credential ' +
            'starts as `pending` until a venue call or POST /api/exchange/validate with the same key ' +
            'judges it. A second credential of the same name on the same venue is a 409. With two-factor ' +
            'on, a second factor within `STEP_UP_MAX_AGE_MINUTES` is needed (403 "Second factor ' +
            'required"; POST /api/auth/2fa/step-up).',
          body: CredentialCreateBody,
          response: { 201: Credential, ...errorResponses(401, 403, 409) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(credentialWire(await credentials.create(request.body, actorOf(request)))),
    );

    app.get(
      '/api/exchange/credentials/:credential_id',
      {
        onRequest,
        config: { tokenScope: 'account:read' },
        schema: {
          tags,
          security,
          operationId: 'getCredential',
          summary: 'One of your credentials, with the masked key',
          params: CredentialIdParams,
          response: { 200: CredentialDetail, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => credentialDetailWire(await credentials.get(actorOf(request).id, request.params.credential_id)),
    );

    app.put(
      '/api/exchange/credentials/:credential_id',
      {
        onRequest: guards.requireStepUp,
        config: { tokenScope: 'account:write' },
        schema: {
          tags,
          security,
          operationId: 'updateCredential',
          summary: 'Change a credential',
          description:
            'New key, secret or passphrase reset the validation to `pending`. With two-factor on, a ' +
            'second factor within `STEP_UP_MAX_AGE_MINUTES` is needed (403 "Second factor ' +
            'required"; POST /api/auth/2fa/step-up).',
          params: CredentialIdParams,
          body: CredentialUpdateBody,
          response: { 200: Credential, ...errorResponses(401, 403, 404, 409) },
        },
      },
      async (request) =>
        credentialWire(await credentials.update(request.params.credential_id, request.body, actorOf(request))),
    );

    app.delete(
      '/api/exchange/credentials/:credential_id',
      {
        onRequest,
        config: { tokenScope: 'account:write' },
        schema: {
          tags,
          security,
          operationId: 'deleteCredential',
          summary: 'Delete a credential',
          params: CredentialIdParams,
          response: { 200: DeleteResult, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => {
        await credentials.remove(request.params.credential_id, actorOf(request));
        return credentialDeletedWire(request.params.credential_id);
      },
    );

    app.post(
      '/api/exchange/validate',
      {
        onRequest,
        config: { tokenScope: 'account:write' },
        preHandler: throttle.hook('validate'),
        schema: {
          tags,
          security,
          operationId: 'validateApiKey',
          summary: 'Try an API key against its venue',
          description:
            'Reads the balance with the key; on binance also GET /sapi/v1/account/apiRestrictions for ' +
            "read/trade/withdraw and IP restriction (binanceus: the account's canTrade/canWithdraw). A refusal " +
            'is a 200 with `valid: false` and a `cause`; a key refused by one Binance venue but accepted by ' +
            'the other is `wrong_venue`. Your stored credentials holding the same key get the verdict. ' +
            'Each user may ask for it SYNC_PER_USER_PER_MINUTE times a minute (10 by default; beyond, 429 with ' +
            "Retry-After saying the user's sync is throttled), and one user's calls may take at most " +
            "VENUE_USER_SHARE_PERCENT of the venue's budget in a minute (25 by default; beyond, 429 with " +
            'Retry-After while other users go on).',
          body: ValidateBody,
          response: { 200: ValidationResult, ...errorResponses(401, 403, 429, 503) },
        },
      },
      async (request) => validationWire(await validation.validate(request.body, actorOf(request))),
    );
  };
}
