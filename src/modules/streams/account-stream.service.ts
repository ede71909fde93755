// One account stream from open to end: live events are followed first and held, the missed ones
// (Last-Event-ID) are replayed from the table, the held ones not already replayed follow, and then
// events flow as they come. The principal is re-checked every second; a suspended account or a
// revoked session ends the stream.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sseEvent, type SseConnection, type SseRegistry } from '../../platform/http/sse.ts';
import type { StoredEvent } from './events.domain.ts';
import type { EventsService } from './events.service.ts';
import type { StreamAccess, StreamPrincipal } from './stream-access.service.ts';

/** Live events held while the replay is read; a backlog past this drops the client (it reconnects). */
const MAX_HELD = 10_000;

const eventText = (event: StoredEvent): string =>
  sseEvent(event.type, { id: event.id, type: event.type, ts: event.ts, data: event.data }, event.id);

export function createAccountStreamService(deps: {
  events: Pick<EventsService, 'subscribe' | 'replay'>;
  access: StreamAccess;
  sse: SseRegistry;
}) {
  const { events, access, sse } = deps;

  return {
    check: access.check,

    async open(
      request: FastifyRequest,
      reply: FastifyReply,
      principal: StreamPrincipal,
      lastId: bigint | undefined,
    ): Promise<void> {
      const subscriber = { userId: principal.userId, admin: principal.admin };
      let held: StoredEvent[] | null = [];
      let connection: SseConnection | undefined;
      const unsubscribe = events.subscribe({
        get userId() {
          return subscriber.userId;
        },
        get admin() {
          return subscriber.admin;
        },
        deliver(event) {
          if (!held) {
            connection?.write(eventText(event));
            return;
          }
          held.push(event);
          if (held.length > MAX_HELD) connection?.end('slow_consumer');
        },
      });
      try {
        connection = sse.open(request, reply, { userId: principal.userId });
      } catch (error) {
        unsubscribe();
        throw error;
      }
      const open = connection;
      // The client left before the stream could open: nothing to watch, replay or send.
      if (open.closed) return unsubscribe();
      const unwatch = access.watch(principal, (verdict) => {
        if (!verdict.ok) open.end(verdict.reason);
        else subscriber.admin = verdict.admin;
      });
      open.onClose(() => {
        unsubscribe();
        unwatch();
      });

      const replayed = new Set<string>();
      if (lastId !== undefined) {
        try {
          for await (const page of events.replay(subscriber, lastId)) {
            if (open.closed) return;
            open.write(page.map(eventText).join(''));
            for (const event of page) replayed.add(event.id);
          }
        } catch (error) {
          // The database failed mid-replay: the client reconnects with the last id it got.
          request.log.warn({ err: error }, 'account stream: replay failed');
          open.end('shutdown', 'The missed events could not be read; reconnect to continue.');
          return;
        }
      }
      // Held events the replay already sent are not sent twice; ids are compared as sets, not by order,
      // because two instances' events may commit in another order than their ids.
      const backlog = held.filter((event) => !replayed.has(event.id));
      held = null;
      if (backlog.length > 0) open.write(backlog.map(eventText).join(''));
    },
  };
}

export type AccountStreamService = ReturnType<typeof createAccountStreamService>;
