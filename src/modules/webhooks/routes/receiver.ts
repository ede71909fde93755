// One receiving route: schema for the contract and the OpenAPI document, then the service call.
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { TSchema } from 'typebox';
import type { WebhookProvider } from '../../../config/config.ts';
import { errorResponses } from '../../../platform/http/schemas.ts';
import { Ack, EventPayload } from '../webhooks.schemas.ts';
import type { WebhooksService } from '../webhooks.service.ts';

export const tags = ['webhooks'];

const COMMON =
  ' Only `application/json` bodies are accepted (415 otherwise). The signature is checked against the raw bytes;' +
  ' 401 when it is missing or wrong, 503 when the provider\'s secret is not configured (unless WEBHOOKS_ALLOW_UNSIGNED=true).' +
  ' The delivery is stored before it is acknowledged; a delivery id seen before is acknowledged again (`duplicate`) and causes nothing.' +
  ' A delivery whose processing failed answers 500 and is processed again when the sender retries it.';

export interface ReceiverOptions {
  provider: WebhookProvider;
  url: string;
  summary: string;
  description: string;
  headers: TSchema;
  body?: TSchema;
  response?: TSchema;
  /** Error bodies, when the route answers errors in a shape of its own. */
  errors?: Record<number, TSchema>;
  onRequest?: onRequestHookHandler;
}

export function registerReceiver(app: FastifyInstance, service: WebhooksService, options: ReceiverOptions): void {
  app.post(
    options.url,
    {
      onRequest: options.onRequest,
      schema: {
        tags,
        summary: options.summary,
        description: options.description + COMMON,
        headers: options.headers,
        body: options.body ?? EventPayload,
        response: { 200: options.response ?? Ack, ...(options.errors ?? errorResponses(401, 413, 415, 500, 503)) },
      },
    },
    async (request: FastifyRequest, reply) => {
      const answer = await service.receive(options.provider, {
        headers: request.headers,
        rawBody: request.rawBody,
        body: request.body,
      });
      return reply.code(answer.status).send(answer.body);
    },
  );
}

/** Lets a real provider's header name stand in for the spec's one, before validation looks. */
export function aliasHeader(from: string, to: string): onRequestHookHandler {
  return async (request) => {
    if (request.headers[to] === undefined && request.headers[from] !== undefined) request.headers[to] = request.headers[from];
  };
}
