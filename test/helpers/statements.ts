// Counts the statements this process sends to the database, as the server receives them (a transaction's
// BEGIN and COMMIT included): node-postgres' client for PostgreSQL, the test app's PGlite otherwise.
// A count does not depend on the machine's load, so it is what a test of a hot path's cost can assert.
import pg from 'pg';
import type { Database } from '../../src/platform/db/database.ts';

interface PgliteLike {
  query(...args: unknown[]): Promise<unknown>;
  transaction(callback: (tx: { query(...args: unknown[]): Promise<unknown> }) => Promise<unknown>): Promise<unknown>;
}

const textOf = (first: unknown): string =>
  typeof first === 'string' ? first : String((first as { text?: string } | null)?.text ?? '');

/** Records each statement's text from now until `stop()`. */
export function recordStatements(database: Database): { texts: string[]; stop(): void } {
  const texts: string[] = [];
  if (database.kind === 'postgres') {
    const prototype = pg.Client.prototype as unknown as { query(...args: unknown[]): unknown };
    const original = prototype.query;
    prototype.query = function (this: unknown, ...args: unknown[]) {
      texts.push(textOf(args[0]));
      return original.apply(this, args);
    };
    return { texts, stop: () => void (prototype.query = original) };
  }
  const client = (database.db as unknown as { $client: PgliteLike }).$client;
  const { query, transaction } = client;
  client.query = (...args: unknown[]) => {
    texts.push(textOf(args[0]));
    return query.apply(client, args);
  };
  client.transaction = (callback) =>
    transaction.call(client, (tx) => {
      texts.push('BEGIN');
      const txQuery = tx.query;
      tx.query = (...args: unknown[]) => {
        texts.push(textOf(args[0]));
        return txQuery.apply(tx, args);
      };
      return callback(tx).finally(() => texts.push('COMMIT'));
    });
  return {
    texts,
    stop() {
      client.query = query;
      client.transaction = transaction;
    },
  };
}
