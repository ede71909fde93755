// How an event produced on one instance reaches the streams open on the others: Redis pub/sub when
// REDIS_URL is set, else the database's LISTEN/NOTIFY (PostgreSQL across instances; PGlite, being one
// process's, within it). Chosen once, in index.ts. Messages are opaque strings to the bus.
export interface EventBus {
  readonly kind: 'redis' | 'database';
  /** Starts listening; `onMessage` gets every message published by any instance, this one included. */
  start(onMessage: (message: string) => void, onReconnect: () => void): Promise<void>;
  /**
   * Publishes to every instance, in order, in one call to the bus (one statement, one Redis round trip);
   * rejects when the bus cannot be reached in time.
   */
  publish(messages: readonly string[]): Promise<void>;
  /**
   * The database's bus: its NOTIFY channel, so that the statement storing events sends them too (one
   * statement where two took two round trips, decision 416). Absent for Redis.
   */
  readonly notifyChannel?: string;
  close(): Promise<void>;
}

/** NOTIFY refuses payloads of 8000 bytes or more; larger events travel by reference. */
export const MAX_MESSAGE_BYTES = 7_900;
