import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticatedUser, Guards } from '../../../platform/auth/guards.ts';
import { AppError, forbidden, invalidField } from '../../../platform/http/errors.ts';
import { securityOf } from '../../../platform/http/openapi.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import type { StreamEventList } from '../../../platform/stream-events.ts';
import { parseLastEventId } from '../events.domain.ts';
import {
  ACCOUNT_STREAM_DESCRIPTION,
  accountStreamFrames,
  StreamHeaders,
  StreamQuery,
  TicketResponse,
} from '../events.schemas.ts';
import type { AccountStreamService } from '../account-stream.service.ts';
import { receivesAdminEvents, type StreamPrincipal } from '../stream-access.service.ts';
import type { TicketsService } from '../tickets.service.ts';
import { ticketWire } from '../streams.wire.ts';

const tags = ['streams'];

declare module 'fastify' {
  interface FastifyRequest {
    streamPrincipal?: StreamPrincipal;
  }
}

export function streamRoutes(deps: {
  streams: AccountStreamService;
  tickets: TicketsService;
  guards: Guards;
  /** The declared events, for the stream's schema. */
  events: StreamEventList;
}): FastifyPluginAsyncTypebox {
  const { streams, tickets, guards } = deps;
  const frames = accountStreamFrames(deps.events);

  /** The stream's principal: a session, an identity provider's token, or an API token (checked as such). */
  const principalOf = (user: AuthenticatedUser): StreamPrincipal => ({
    userId: user.id,
    sessionId: user.sessionId,
    apiTokenId: user.apiToken?.id ?? null,
    admin: receivesAdminEvents(user.role, user.apiToken?.scopes),
  });

  /** The bearer guard, or a ticket in the query: checked before validation, as every guard is. */
  async function streamAuth(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const ticket = (request.query as { ticket?: unknown }).ticket;
    if (typeof ticket === 'string' && ticket !== '' && !request.headers.authorization) {
      const principal = await tickets.redeem(ticket);
      if (!principal) throw new AppError('unauthenticated', 'Invalid, expired or already used stream ticket');
      const verdict = await streams.check(principal);
      if (!verdict.ok)
        throw verdict.reason === 'suspended'
          ? forbidden('User account is not active')
          : new AppError('unauthenticated', 'Session has been revoked or has expired');
      request.streamPrincipal = { ...principal, admin: verdict.admin };
      void reply.header('cache-control', 'no-store');
      return;
    }
    await guards.requireUser(request, reply);
    request.streamPrincipal = principalOf(request.user!);
  }

  return async (app) => {
    app.post(
      '/api/stream/ticket',
      {
        onRequest: guards.requireUser,
        config: { tokenScope: 'stream:read' },
        schema: {
          tags,
          operationId: 'createStreamTicket',
          summary: 'A single-use ticket for the account stream',
          description:
            "For clients that cannot send an Authorization header (a browser's EventSource): valid 60 s, good " +
            'for one `GET /api/stream?ticket=...`. At most 20 per user a minute: past it, 429 with Retry-After.',
          security: bearerSecurity,
          response: { 200: TicketResponse, ...errorResponses(401, 403, 429) },
        },
      },
      async (request) => ticketWire(await tickets.issue(principalOf(request.user!))),
    );

    app.get(
      '/api/stream',
      {
        onRequest: streamAuth,
        config: { tokenScope: 'stream:read' },
        schema: {
          tags,
          operationId: 'streamAccountEvents',
          summary: "The caller's account events as Server-Sent Events",
          description: ACCOUNT_STREAM_DESCRIPTION,
          security: securityOf('bearerAuth', 'streamTicket'),
          querystring: StreamQuery,
          headers: StreamHeaders,
          response: {
            200: {
              description: 'The event stream.',
              content: { 'text/event-stream': { schema: frames } },
            },
            ...errorResponses(401, 403, 429, 503),
          },
        },
      },
      async (request, reply) => {
        const fromHeader = request.headers['last-event-id'];
        const raw = typeof fromHeader === 'string' ? fromHeader : request.query.last_event_id;
        const lastId = parseLastEventId(raw);
        if (lastId === 'invalid') {
          const loc = typeof fromHeader === 'string' ? ['header', 'last-event-id'] : ['query', 'last_event_id'];
          throw invalidField(loc, 'must be the id of an event received from this stream', raw);
        }
        await streams.open(request, reply, request.streamPrincipal!, lastId);
      },
    );
  };
}
