// Account events: stored first (the replay window, 24 h), then delivered to this instance's streams at
// once and to the other instances through the bus, which deliver them to theirs. A publication never
// fails its producer: an event that cannot be stored is logged and dropped, one that cannot cross the
// bus still reaches this instance's streams and every reconnecting client's replay.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.ts';
import type { EventBus } from './adapters/event-bus.ts';
import { MAX_MESSAGE_BYTES } from './adapters/event-bus.ts';
import type { StreamEventData, StreamEventList, StreamEventType } from '../../platform/stream-events.ts';
import { REPLAY_WINDOW_MS, reaches, type StoredEvent } from './events.domain.ts';
import type { EventCompanions, EventsRepository, Published } from './events.repository.ts';

/**
 * What producers in other modules are given: one call per publication, typed by the declared events,
 * so that `data` is of the schema of that type. A producer asks for the port over its own declarations
 * (`Pick<EventPublisher<typeof X_EVENTS>, 'user'>`); the port over every event satisfies it.
 */
export interface EventPublisher<Events extends StreamEventList> {
  /** An event about one user's account, for that user's streams. */
  user<Type extends StreamEventType<Events, 'user'>>(
    userId: string,
    type: Type,
    data: StreamEventData<Events, Type>,
  ): Promise<void>;
  /**
   * Several events of one type about one user's account, in this order: stored in one statement and
   * sent across the bus in one call, each an event of its own for the streams (an order's states
   * committed together, decision 321).
   */
  userEach<Type extends StreamEventType<Events, 'user'>>(
    userId: string,
    type: Type,
    data: readonly StreamEventData<Events, Type>[],
  ): Promise<void>;
  /** An event about the platform, for every admin's stream. */
  admins<Type extends StreamEventType<Events, 'admins'>>(
    type: Type,
    data: StreamEventData<Events, Type>,
  ): Promise<void>;
}

interface Subscriber {
  userId: string;
  admin: boolean;
  deliver(event: StoredEvent): void;
}

/** A bus message as the statement storing the event builds it (events.repository.ts, `MESSAGE_OF_STORED`). */
type BusMessage = { o: string; e: StoredEvent } | { o: string; r: string };

/** Ids delivered lately, so a catch-up after a bus outage delivers nothing twice. */
const SEEN_LIMIT = 10_000;
/** The most publications stored in one insert (decision 760); more wait for the next. */
const MAX_BATCHED_PUBLICATIONS = 100;

export function createEventsService<Events extends StreamEventList>(deps: {
  repo: EventsRepository;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
}) {
  const { repo, bus, clock, logger } = deps;
  const origin = randomUUID();
  const subscribers = new Set<Subscriber>();
  /**
   * Other modules following the events this instance publishes (the notifications module), each with the
   * index of the value it has read beside each event by the insert, if it asked for one (decision 870).
   */
  const observers = new Map<(event: StoredEvent, companion?: unknown) => void, number | undefined>();
  /** The expressions those observers asked to be read beside each stored event, one list for every insert. */
  let companions: EventCompanions = [];
  const seen = new Set<string>();
  let highest = 0n;
  let busWarned = false;

  function dispatch(event: StoredEvent): void {
    if (seen.has(event.id)) return;
    seen.add(event.id);
    if (seen.size > SEEN_LIMIT) seen.delete(seen.values().next().value!);
    if (BigInt(event.id) > highest) highest = BigInt(event.id);
    for (const subscriber of subscribers) if (reaches(event, subscriber)) subscriber.deliver(event);
  }

  /**
   * How this instance's own messages start, as the insert's `json_build_object` writes them: they come back on
   * the database's bus, and are known by their start without parsing the event they carry (decision 870).
   */
  const ownMessageStart = `{"o" : "${origin}"`;

  async function onMessage(text: string): Promise<void> {
    if (text.startsWith(ownMessageStart)) return;
    let message: BusMessage;
    try {
      message = JSON.parse(text) as BusMessage;
    } catch {
      return;
    }
    if (message.o === origin) return;
    if ('e' in message) return dispatch(message.e);
    const event = await repo.byId(message.r).catch(() => undefined);
    if (event) dispatch(event);
  }

  /** After the bus was lost: what other instances stored meanwhile, from the table. */
  async function catchUp(): Promise<void> {
    try {
      const since = new Date(clock.now().getTime() - REPLAY_WINDOW_MS);
      for (const event of await repo.allAfter(highest, since, 5_000)) dispatch(event);
    } catch (error) {
      logger.warn({ err: error }, 'account streams: catch-up after a bus outage failed');
    }
  }

  /**
   * Publications waiting for the next insert, in the order given. One insert is in flight at a time: what
   * is published meanwhile, or in the same turn of the event loop, goes in the next one, so that orders
   * answered together store their events in one statement rather than one each (decision 760). The events
   * keep the order of their publications (one insert after another, each in its order).
   */
  const waiting: { events: readonly Omit<StoredEvent, 'id' | 'ts'>[]; done: () => void }[] = [];
  let storing = false;

  /** Publishes events in their order: stored with others waiting in one statement, then delivered, then sent on the bus. */
  function publish(events: readonly Omit<StoredEvent, 'id' | 'ts'>[]): Promise<void> {
    return new Promise<void>((done) => {
      waiting.push({ events, done });
      if (storing) return;
      storing = true;
      // After the callbacks of this turn, whose publications then go with this one.
      setImmediate(() => void drain());
    });
  }

  async function drain(): Promise<void> {
    while (waiting.length > 0) {
      const batch = waiting.splice(0, MAX_BATCHED_PUBLICATIONS);
      let sent: Promise<void>;
      try {
        // Sent on the bus before the next insert, so its messages keep the events' order; awaited beside it.
        sent = send((await store(batch.map((p) => p.events))).flat());
      } catch (error) {
        logger.error({ err: error }, 'account events could not be delivered');
        sent = Promise.resolve();
      }
      void sent.then(() => {
        for (const publication of batch) publication.done();
      });
    }
    storing = false;
  }

  /**
   * Each publication's events stored, in one statement for all; when it fails, each publication alone, so
   * that one that cannot be stored (data the column refuses) drops only its own events, as when each had
   * its statement. Answers each publication's stored events (none when it could not be stored), delivered.
   */
  async function store(publications: readonly (readonly Omit<StoredEvent, 'id' | 'ts'>[])[]): Promise<Published[][]> {
    const at = clock.now();
    const insert = (events: readonly Omit<StoredEvent, 'id' | 'ts'>[]) =>
      // The statement storing them builds their bus messages (their one definition, decision 491).
      repo.insertAll(
        events.map((event) => ({ ...event, at })),
        { origin, maxBytes: MAX_MESSAGE_BYTES, notifyChannel: bus.notifyChannel },
        companions,
      );
    let stored: Published[][];
    try {
      const all = await insert(publications.flat());
      stored = [];
      let from = 0;
      for (const events of publications) {
        stored.push(all.slice(from, from + events.length));
        from += events.length;
      }
    } catch (error) {
      if (publications.length === 1) {
        logger.error(
          { err: error, type: publications[0]![0]?.type },
          'account event could not be stored; not delivered',
        );
        return [[]];
      }
      stored = [];
      for (const events of publications) {
        try {
          stored.push(await insert(events));
        } catch (alone) {
          logger.error({ err: alone, type: events[0]?.type }, 'account event could not be stored; not delivered');
          stored.push([]);
        }
      }
    }
    for (const { event, companions: read } of stored.flat()) {
      dispatch(event);
      // Only the publishing instance tells its observers: each event is observed once, wherever it is streamed.
      for (const [observer, index] of observers) {
        try {
          observer(event, index === undefined ? undefined : read?.[index]);
        } catch (error) {
          logger.error({ err: error, type: event.type }, 'an account event observer failed');
        }
      }
    }
    return stored;
  }

  /** The stored events' messages to the other instances, when the insert did not send them itself. */
  async function send(published: readonly Published[]): Promise<void> {
    // The database's bus had them sent by the insert itself.
    if (bus.notifyChannel || published.length === 0) return;
    try {
      await bus.publish(published.map(({ message }) => message!));
      busWarned = false;
    } catch (error) {
      // Said once per outage: the other instances' streams get it when they reconnect (replay).
      if (!busWarned)
        logger.warn(
          { err: error, bus: bus.kind },
          'account events cannot reach other instances; their clients get them on reconnect',
        );
      busWarned = true;
    }
  }

  const publisher: EventPublisher<Events> = {
    user: (userId, type, data) => publish([{ type, audience: 'user', userId, data }]),
    userEach: (userId, type, data) => publish(data.map((one) => ({ type, audience: 'user', userId, data: one }))),
    admins: (type, data) => publish([{ type, audience: 'admins', userId: null, data }]),
  };

  return {
    publisher,

    /**
     * Follows every event this instance publishes, once stored; answers the unsubscribe. With `companion`
     * (an SQL expression over the stored row, `stored.user_id`), the insert storing each event also reads
     * that value, handed to the observer beside the event as the driver answers it (decision 870): what it
     * would read for each event in a statement of its own, in the insert's.
     */
    observe<Companion = unknown>(
      observer: (event: StoredEvent, companion?: Companion) => void,
      companion?: string,
    ): () => void {
      let index: number | undefined;
      if (companion !== undefined) {
        index = companions.indexOf(companion);
        if (index < 0) {
          companions = [...companions, companion];
          index = companions.length - 1;
        }
      }
      const follow = observer as (event: StoredEvent, companion?: unknown) => void;
      observers.set(follow, index);
      return () => observers.delete(follow);
    },

    /** Follows the live events of a user (and the admin ones when admin); answers the unsubscribe. */
    subscribe(subscriber: Subscriber): () => void {
      subscribers.add(subscriber);
      return () => subscribers.delete(subscriber);
    },

    /** The stored events after `afterId`, within the replay window, in pages, oldest first. */
    async *replay(
      subscriber: Pick<Subscriber, 'userId' | 'admin'>,
      afterId: bigint,
      pageSize = 500,
    ): AsyncGenerator<StoredEvent[]> {
      const since = new Date(clock.now().getTime() - REPLAY_WINDOW_MS);
      let after = afterId;
      for (;;) {
        const page = await repo.after({ ...subscriber, afterId: after, since, limit: pageSize });
        if (page.length > 0) yield page;
        if (page.length < pageSize) return;
        after = BigInt(page.at(-1)!.id);
      }
    },

    async prune(): Promise<number> {
      return repo.prune(new Date(clock.now().getTime() - REPLAY_WINDOW_MS));
    },

    async start(): Promise<void> {
      highest = await repo.maxId().catch(() => 0n);
      await bus.start(
        (text) => void onMessage(text),
        () => void catchUp(),
      );
      // Once as the module starts; afterwards the prune-stream-events job does it (every 10 minutes
      // under the in-process scheduler, or when an outside scheduler calls it).
      void repo
        .prune(new Date(clock.now().getTime() - REPLAY_WINDOW_MS))
        .catch((error: unknown) => logger.warn({ err: error }, 'account events: pruning failed'));
    },

    async stop(): Promise<void> {
      subscribers.clear();
      await bus.close();
    },
  };
}

export type EventsService = ReturnType<typeof createEventsService<StreamEventList>>;
