// One receiving route: schema for the contract and the OpenAPI document, then the service call.
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { TSchema } from 'typebox';
import type { WebhookProvider } from '../../../config/config.ts';
import { errorResponses } from '../../../platform/http/schemas.ts';
import { Ack, EventPayload } from '../webhooks.schemas.ts';
import type { WebhooksService } from '../webhooks.service.ts';
import type { AdmissionService } from '../admission.service.ts';
import { securityOf, type SecuritySchemeName } from '../../../platform/http/openapi.ts';
import { admissionOf, admitDelivery } from './signed-body.ts';

export const tags = ['webhooks'];

const MiB = 1024 * 1024;

/**
 * The largest body each receiver reads (decision 005). GitHub caps payloads at 25 MB and sends that
 * much for large pushes; the others send kilobytes, so a few MiB is ample and bounds what a
 * sender with a wrong signature can make us buffer (never parse) before the 401. A platform limit
 * set higher (BODY_LIMIT_BYTES) wins.
 */
const WEBHOOK_BODY_LIMITS: Readonly<Record<WebhookProvider, number>> = {
  codehost: 25 * MiB,
  payments: 4 * MiB,
  edge: 4 * MiB,
  tracker: 4 * MiB,
  errormon: 4 * MiB,
  database: 4 * MiB,
  authprovider: 4 * MiB,
  mailer: 4 * MiB,
};

const COMMON =
  " 503 when the provider's secret is not configured (unless WEBHOOKS_ALLOW_UNSIGNED=true), answered before " +
  'the body is read. Only `application/json` bodies are accepted (415 otherwise). The signature is checked ' +
  'against the raw bytes as they arrive, before the body is parsed: 401 when it is missing or wrong, whatever ' +
  'the body holds. The delivery is stored before it is acknowledged; a delivery id seen before is acknowledged ' +
  'again (`duplicate`) and causes nothing. A delivery whose processing failed answers 500 and is processed ' +
  'again when the sender retries it.';

interface ReceiverOptions {
  provider: WebhookProvider;
  url: string;
  /** The client method name of the operation (OpenAPI operationId). */
  operationId: string;
  /** How a delivery proves where it comes from: any one of these schemes. */
  security: SecuritySchemeName[];
  summary: string;
  description: string;
  headers: TSchema;
  body?: TSchema;
  response?: TSchema;
  /** Error bodies, when the route answers errors in a shape of its own. */
  errors?: Record<number, TSchema>;
  /** The body of a refusal answered before the body is read, when the route has a shape of its own. */
  errorBody?: (status: number, detail: string) => Record<string, unknown>;
  onRequest?: onRequestHookHandler;
}

export interface ReceiverDeps {
  service: Pick<WebhooksService, 'receive'>;
  admission: Pick<AdmissionService, 'admit' | 'judge'>;
}

export function registerReceiver(app: FastifyInstance, deps: ReceiverDeps, options: ReceiverOptions): void {
  const { service, admission } = deps;
  const bodyLimit = Math.max(WEBHOOK_BODY_LIMITS[options.provider], app.initialConfig.bodyLimit ?? 0);
  const admit = admitDelivery(admission, options.provider, options.errorBody ?? ((_status, detail) => ({ detail })));
  app.post(
    options.url,
    {
      // Header aliases first: the gate reads the provider's header names as well as the spec's.
      onRequest: options.onRequest ? [options.onRequest, admit] : admit,
      bodyLimit,
      schema: {
        tags,
        operationId: options.operationId,
        security: securityOf(...options.security),
        summary: options.summary,
        description: `${options.description}${COMMON} Bodies above ${bodyLimit} bytes answer 413.`,
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
        verified: admissionOf(request).verified,
      });
      return reply.code(answer.status).send(answer.body);
    },
  );
}

/** Lets a real provider's header name stand in for the spec's one, before validation looks. */
export function aliasHeader(from: string, to: string): onRequestHookHandler {
  return async (request) => {
    if (request.headers[to] === undefined && request.headers[from] !== undefined)
      request.headers[to] = request.headers[from];
  };
}
