// Counts the statements this process sends to the database, as the server receives them (a transaction's
// BEGIN and COMMIT included): node-postgres' client for PostgreSQL, the test app's PGlite otherwise.
// A count does not depend on the machine's load, so it is what a test of a hot path's cost can assert.
// Each statement's send and answer are timed too, to count the round trips a request waits for one after
// another (`inSeries`): statements sent together count once, whatever the machine's speed.
import pg from 'pg';
import type { Database } from '../../src/platform/db/database.ts';

interface PgliteLike {
  query(...args: unknown[]): Promise<unknown>;
  transaction(callback: (tx: { query(...args: unknown[]): Promise<unknown> }) => Promise<unknown>): Promise<unknown>;
}

const textOf = (first: unknown): string =>
  typeof first === 'string' ? first : String((first as { text?: string } | null)?.text ?? '');

/** A statement as the client sent it: its text, when it was sent and when its answer came (`performance.now()`). */
export interface TimedStatement {
  text: string;
  sentAt: number;
  answeredAt: number;
}

export interface RecordedStatements {
  texts: string[];
  /** Each statement with its times; `answeredAt` is Infinity until its answer comes. */
  timed: TimedStatement[];
  /** Forgets what was recorded so far. */
  clear(): void;
  stop(): void;
}

/**
 * The round trips in series among `statements` answered by `until`: the most of them of which each was
 * sent after the one before it was answered. Statements sent together (one awaited beside another)
 * count once; a statement sent without waiting for another's answer adds no round trip.
 */
export function inSeries(statements: readonly TimedStatement[], until = Infinity): number {
  const answered = statements.filter((s) => s.answeredAt <= until).sort((a, b) => a.answeredAt - b.answeredAt);
  let count = 0;
  let last = -Infinity;
  for (const s of answered) {
    if (s.sentAt < last) continue;
    count += 1;
    last = s.answeredAt;
  }
  return count;
}

/** Records each statement's text and times from now until `stop()`. */
export function recordStatements(database: Database): RecordedStatements {
  const texts: string[] = [];
  const timed: TimedStatement[] = [];
  /** Notes a statement sent; the answer's time is set by the function returned. */
  const sent = (first: unknown): (() => void) => {
    const text = textOf(first);
    texts.push(text);
    const entry = { text, sentAt: performance.now(), answeredAt: Infinity };
    timed.push(entry);
    return () => void (entry.answeredAt = performance.now());
  };
  /** Calls a client's query, noting its answer whether it comes to a callback or a promise. */
  const timedCall = (query: (...a: unknown[]) => unknown, self: unknown, args: unknown[], text: unknown) => {
    const answered = sent(text);
    const last = args.at(-1);
    if (typeof last === 'function') {
      args[args.length - 1] = (...results: unknown[]) => {
        answered();
        return (last as (...r: unknown[]) => unknown)(...results);
      };
      return query.apply(self, args);
    }
    const result = query.apply(self, args);
    if (result && typeof (result as Promise<unknown>).then === 'function')
      (result as Promise<unknown>).then(answered, answered);
    return result;
  };
  const clear = () => {
    texts.length = 0;
    timed.length = 0;
  };
  if (database.kind === 'postgres') {
    const prototype = pg.Client.prototype as unknown as { query(...args: unknown[]): unknown };
    const original = prototype.query;
    prototype.query = function (this: unknown, ...args: unknown[]) {
      return timedCall(original, this, args, args[0]);
    };
    return { texts, timed, clear, stop: () => void (prototype.query = original) };
  }
  const client = (database.db as unknown as { $client: PgliteLike }).$client;
  const { query, transaction } = client;
  client.query = (...args: unknown[]) => timedCall(query, client, args, args[0]) as Promise<unknown>;
  client.transaction = (callback) =>
    transaction.call(client, (tx) => {
      sent('BEGIN')();
      const txQuery = tx.query;
      tx.query = (...args: unknown[]) => timedCall(txQuery, tx, args, args[0]) as Promise<unknown>;
      return callback(tx).finally(() => sent('COMMIT')());
    });
  return {
    texts,
    timed,
    clear,
    stop() {
      client.query = query;
      client.transaction = transaction;
    },
  };
}
