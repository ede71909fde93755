// PostgreSQL's LISTEN for every channel of one Database on one session of its own (decision 750): a
// pooled session would be handed to other queries, and a session per channel costs the server a backend
// each. Channels are LISTENed and UNLISTENed on it as their first subscriber comes and last one goes.
import type pg from 'pg';

type Client = InstanceType<typeof pg.Client>;

export type Listen = (
  channel: string,
  onMessage: (payload: string) => void,
  onReconnect?: () => void,
) => Promise<() => Promise<void>>;

interface Subscriber {
  onMessage(payload: string): void;
  onReconnect?: () => void;
  /** The session its LISTEN was in place on; undefined until then. */
  session?: Session;
}

interface Session {
  client: Client;
  /** Each channel's LISTEN on this session, sent or in place. */
  listens: Map<string, Promise<void>>;
}

interface ListenerOptions {
  /** A client class whose query past `query_timeout` cuts its connection (database.ts). */
  Client: typeof pg.Client;
  url: string;
  connectTimeoutMs: number;
  /** The client's bound on LISTEN, UNLISTEN and the goodbye. */
  queryTimeoutMs: number;
  /** Wait before opening the session again after a loss, and between failed attempts. */
  retryMs?: number;
}

const quote = (channel: string) => `"${channel.replaceAll('"', '""')}"`;

export function createPgListener(options: ListenerOptions): { listen: Listen; close(): Promise<void> } {
  const retryMs = options.retryMs ?? 1_000;
  const channels = new Map<string, Set<Subscriber>>();
  let current: Session | undefined;
  let opening: Promise<Session> | undefined;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;

  function deliver(channel: string, payload: string): void {
    for (const subscriber of channels.get(channel) ?? []) subscriber.onMessage(payload);
  }

  /** The session, opened (with every channel's LISTEN) when there is none. */
  function session(): Promise<Session> {
    if (current) return Promise.resolve(current);
    clearTimeout(retry);
    retry = undefined;
    opening ??= open()
      .catch((error: unknown) => {
        // Subscribers whose LISTEN was in place wait for the session; a new one is told by its rejection.
        if (!closed && [...channels.values()].some((set) => [...set].some((one) => one.session))) scheduleOpen();
        throw error;
      })
      .finally(() => {
        opening = undefined;
      });
    return opening;
  }

  async function open(): Promise<Session> {
    const client = new options.Client({
      connectionString: options.url,
      connectionTimeoutMillis: options.connectTimeoutMs,
      query_timeout: options.queryTimeoutMs,
      keepAlive: true,
    });
    const next: Session = { client, listens: new Map() };
    client.on('notification', (message) => deliver(message.channel, message.payload ?? ''));
    client.on('error', () => {
      // Reported by 'end', which opens the session again.
    });
    client.on('end', () => lost(next));
    try {
      await client.connect();
      const names = [...channels.keys()];
      if (names.length > 0) {
        const all = client.query(names.map((name) => `LISTEN ${quote(name)}`).join('; ')).then(() => {});
        for (const name of names) next.listens.set(name, all);
        await all;
      }
    } catch (error) {
      await end(client);
      throw error;
    }
    if (closed || channels.size === 0) {
      await end(client);
      throw new Error('Nothing listens any more');
    }
    current = next;
    // A channel stopped while its LISTEN was on the way.
    for (const name of next.listens.keys()) {
      if (channels.has(name)) continue;
      next.listens.delete(name);
      client.query(`UNLISTEN ${quote(name)}`).catch(() => {});
    }
    // Notifications sent while the session was away are gone: every subscriber it had is told.
    const told: (() => void)[] = [];
    for (const subscribers of channels.values()) {
      for (const subscriber of subscribers) {
        if (subscriber.session && subscriber.session !== next && subscriber.onReconnect)
          told.push(subscriber.onReconnect);
        if (subscriber.session) subscriber.session = next;
      }
    }
    for (const onReconnect of told) {
      try {
        onReconnect();
      } catch (error) {
        // One subscriber's bug neither stops the others being told nor passes unseen.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
    return next;
  }

  function lost(gone: Session): void {
    if (current !== gone) return;
    current = undefined;
    if (!closed && channels.size > 0) scheduleOpen();
  }

  function scheduleOpen(): void {
    clearTimeout(retry);
    retry = setTimeout(() => {
      retry = undefined;
      session().catch(() => {
        // Scheduled again by the failure itself.
      });
    }, retryMs);
    retry.unref();
  }

  /** The LISTEN of `channel` on `on`, sent once per session. */
  function listenOn(on: Session, channel: string): Promise<void> {
    let listening = on.listens.get(channel);
    if (!listening) {
      const sent = on.client.query(`LISTEN ${quote(channel)}`).then(() => {});
      // A failed LISTEN is sent again by the channel's next subscriber.
      sent.catch(() => {
        if (on.listens.get(channel) === sent) on.listens.delete(channel);
      });
      on.listens.set(channel, sent);
      listening = sent;
    }
    return listening;
  }

  async function end(client: Client): Promise<void> {
    // A frozen server never answers the goodbye: the connection is cut at the bound.
    const cut = setTimeout(() => {
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    }, options.queryTimeoutMs);
    await client.end().catch(() => {});
    clearTimeout(cut);
  }

  async function stop(channel: string, subscriber: Subscriber): Promise<void> {
    const subscribers = channels.get(channel);
    if (!subscribers?.delete(subscriber)) return;
    if (subscribers.size > 0) return;
    channels.delete(channel);
    const on = current;
    if (channels.size === 0) {
      // The last channel: the session goes (one being opened ends itself, finding nothing to listen to).
      clearTimeout(retry);
      retry = undefined;
      current = undefined;
      if (on) await end(on.client);
      return;
    }
    if (!on?.listens.delete(channel)) return;
    // Failing, the session is lost and opened again without this channel.
    await on.client.query(`UNLISTEN ${quote(channel)}`).catch(() => {});
  }

  const listen: Listen = async (channel, onMessage, onReconnect) => {
    if (closed) throw new Error('The database is closed');
    const subscriber: Subscriber = { onMessage, onReconnect };
    const subscribers = channels.get(channel) ?? new Set();
    channels.set(channel, subscribers.add(subscriber));
    try {
      const on = await session();
      await listenOn(on, channel);
      // Lost meanwhile and not back: told when it is, as the LISTEN was in place.
      subscriber.session ??= on;
    } catch (error) {
      await stop(channel, subscriber);
      throw error;
    }
    return () => stop(channel, subscriber);
  };

  return {
    listen,
    async close() {
      closed = true;
      clearTimeout(retry);
      retry = undefined;
      channels.clear();
      const on = current;
      current = undefined;
      if (on) await end(on.client);
    },
  };
}
