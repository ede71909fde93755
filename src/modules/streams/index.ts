// Live account events (GET /api/stream, POST /api/stream/ticket): other modules publish the events
// they declare (src/declarations.ts gathers them) through the `publisher` port; events are kept 24 h
// for replay and cross instances through Redis pub/sub (REDIS_URL) or the database's LISTEN/NOTIFY.
import type { Platform } from '../../platform/platform.ts';
import type { StreamsDeps } from './streams.deps.ts';
import type { StreamEventList } from '../../platform/stream-events.ts';
import { createAccountStreamService } from './account-stream.service.ts';
import { createDatabaseEventBus } from './adapters/database-event-bus.ts';
import type { EventBus } from './adapters/event-bus.ts';
import { createRedisEventBus } from './adapters/redis-event-bus.ts';
import { createEventsRepository } from './events.repository.ts';
import { createEventsService } from './events.service.ts';
import { streamRoutes } from './routes/stream.routes.ts';
import { createStreamAccess } from './stream-access.service.ts';
import { createTicketsService } from './tickets.service.ts';
import { bindJob } from '../../platform/jobs.ts';
import { pruneStreamEventsJob } from './prune-stream-events.job.ts';

export type { EventPublisher } from './events.service.ts';

/** `events`: every declared event (src/declarations.ts); the publisher and the stream's schema come from it. */
export function createStreamsModule<const Events extends StreamEventList>(
  platform: Platform,
  deps: StreamsDeps<Events>,
) {
  const { config, database, cache, clock, logger } = platform;
  const channel = `${config.redisKeyPrefix}stream-events`;
  const bus: EventBus = config.redisUrl
    ? createRedisEventBus(config.redisUrl, channel)
    : createDatabaseEventBus(database, channel.replace(/[^A-Za-z0-9_]/g, '_'));
  const events = createEventsService<Events>({ repo: createEventsRepository(database.db), bus, clock, logger });
  const access = createStreamAccess({ users: deps.users, clock, logger });
  const tickets = createTicketsService({ cache, clock });
  const streams = createAccountStreamService({ events, access, sse: deps.sse });
  const start = () => events.start();
  async function stop(): Promise<void> {
    access.stop();
    await events.stop();
  }

  return {
    name: 'streams',
    routes: streamRoutes({ streams, tickets, guards: deps.guards, events: deps.events }),
    /** For producers: `publisher.user(userId, type, data)` and `publisher.admins(type, data)`; never throws. */
    publisher: events.publisher,
    /** For followers in other modules: every account event this instance publishes, once stored. */
    observe: events.observe,
    /** Deletes events older than the replay window (also done every 10 minutes while running). */
    prune: events.prune,
    /** Starts listening on the bus; call once the app is ready. */
    start,
    /** Stops listening and the access checks; the streams themselves are ended by the SSE registry. */
    stop,
    hooks: { ready: start, closing: stop },
    jobs: [bindJob(pruneStreamEventsJob, { streamEvents: events })],
  };
}

/** What the module contributes to the app and the database (decision 230). */
export { STREAMS_MODULE } from './streams.module.ts';
