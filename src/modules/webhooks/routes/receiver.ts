// The receiving routes, one per declared provider: schema for the contract and the OpenAPI document
// (from the provider's declaration), the admission gate, then the service call.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { AppError } from '../../../platform/http/errors.ts';
import { errorResponses } from '../../../platform/http/schemas.ts';
import { Ack, EventPayload } from '../webhooks.schemas.ts';
import type { WebhooksService } from '../webhooks.service.ts';
import type { AdmissionService } from '../admission.service.ts';
import type { ProviderDeclaration } from '../providers/registry.ts';
import { admissionOf, admitDelivery } from './signed-body.ts';

export const tags = ['webhooks'];

const COMMON =
  " 503 when the provider's secret is not configured (unless WEBHOOKS_ALLOW_UNSIGNED=true), answered before " +
  'the body is read. Only `application/json` bodies are accepted (415 otherwise). The signature is checked ' +
  'against the raw bytes as they arrive, before the body is parsed: 401 when it is missing or wrong, whatever ' +
  "the body holds. A body past the platform's own request limit that arrives while unverified bodies already " +
  'hold all the room they may together answers 429 with `Retry-After`. The delivery is stored before it is acknowledged; a delivery id seen before is acknowledged ' +
  'again (`duplicate`) and causes nothing. A delivery whose processing failed answers 500 and is processed ' +
  'again when the sender retries it.';

export interface ReceiverDeps {
  service: Pick<WebhooksService, 'receive'>;
  admission: Pick<AdmissionService, 'admit' | 'judge'>;
}

const plainError = (_status: number, detail: unknown) => ({ detail });

/** The provider's route, in a scope of its own (its error shape, when it has one, is its alone). */
function registerReceiver(app: FastifyInstance, deps: ReceiverDeps, provider: ProviderDeclaration): void {
  const { service, admission } = deps;
  const { route } = provider;
  const errors = route.errors;
  const errorBody = errors?.body ?? plainError;
  if (errors) {
    app.setErrorHandler((error, _request, reply) => {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      void reply.code(error.status).headers(error.headers).send(errorBody(error.status, error.detail));
    });
  }
  const bodyLimit = Math.max(provider.bodyLimit, app.initialConfig.bodyLimit ?? 0);
  const admit = admitDelivery(admission, provider.provider, errorBody);
  const aliases = route.headerAliases;
  app.post(
    route.url,
    {
      // Header aliases first: the gate reads the provider's header names as well as the spec's.
      onRequest: aliases ? [aliasHeaders(aliases), admit] : admit,
      bodyLimit,
      schema: {
        tags,
        operationId: route.operationId,
        security: Object.keys(provider.security).map((scheme) => ({ [scheme]: [] })),
        summary: route.summary,
        description: `${route.description}${COMMON} Bodies above ${bodyLimit} bytes answer 413.`,
        headers: route.headers,
        body: route.body ?? EventPayload,
        response: {
          200: route.response ?? Ack,
          ...(errors
            ? Object.fromEntries(errors.statuses.map((status) => [status, errors.schema]))
            : errorResponses(401, 413, 415, 429, 500, 503)),
        },
      },
    },
    async (request: FastifyRequest, reply) => {
      const answer = await service.receive(provider.provider, {
        headers: request.headers,
        rawBody: request.rawBody,
        body: request.body,
        verified: admissionOf(request).verified,
      });
      return reply.code(answer.status).send(answer.body);
    },
  );
}

/** Every declared provider's receiving route, in the declarations' order. */
export function receiverRoutes(
  deps: ReceiverDeps & { providers: readonly ProviderDeclaration[] },
): FastifyPluginAsyncTypebox {
  return async function routes(app) {
    for (const provider of deps.providers) {
      await app.register(async (scope) => registerReceiver(scope, deps, provider));
    }
  };
}

/** Lets real providers' header names stand in for the spec's ones, before validation looks. */
function aliasHeaders(aliases: Readonly<Record<string, string>>): onRequestHookHandler {
  return async (request) => {
    for (const [from, to] of Object.entries(aliases))
      if (request.headers[to] === undefined && request.headers[from] !== undefined)
        request.headers[to] = request.headers[from];
  };
}
