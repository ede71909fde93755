// PGlite's `query` runs every statement unnamed: parsed and planned again on each run, over six calls into
// its WebAssembly (Parse, Describe, Bind, Describe, Execute, Sync). Most of a PGlite statement's CPU was
// that (decision 1340): the orders' hottest statements cost 2 to 7 ms each. Here each statement text is
// parsed once, as a named statement, and then run in one call (Bind, Describe, Execute, Sync): the same
// rows and errors as PGlite's `query`, in its locks, for 2 to 3 times less CPU. PostgreSQL's connections
// name their hottest statements too (decision 192).
import type { PGlite, QueryOptions, Results, Transaction } from '@electric-sql/pglite';

/** The PGlite module's protocol and result parsing, handed in: this module does not load PGlite itself. */
type PgliteModule = Pick<typeof import('@electric-sql/pglite'), 'parse' | 'protocol'>;
type BackendMessage = Awaited<ReturnType<PGlite['execProtocolStream']>>[number];

/** Statements kept per database: past this, the least recently run is closed. */
export const MAX_STATEMENTS = 1_000;
/** PostgreSQL's "cached plan must not change result type" (a table changed under it) and "no such statement". */
const STALE_STATEMENT = new Set(['0A000', '26000']);

interface Statement {
  name: string;
  /** The parameters' types as PostgreSQL inferred them: values are written as PGlite's `query` writes them. */
  types: readonly number[];
}

/** One batch of protocol messages, as one call. */
function batch(messages: readonly Uint8Array[]): Uint8Array {
  if (messages.length === 1) return messages[0]!;
  const out = new Uint8Array(messages.reduce((n, m) => n + m.length, 0));
  let at = 0;
  for (const m of messages) {
    out.set(m, at);
    at += m.length;
  }
  return out;
}

/** The error as PGlite's `query` throws it: the database's, with the statement and values it ran. */
function withStatement(error: unknown, query: string, params: unknown[], options: QueryOptions | undefined): unknown {
  if (error && typeof error === 'object' && 'severity' in error)
    Object.assign(error, { query, params, queryOptions: options });
  return error;
}

/** What the app's queries ask of a PGlite client: drizzle's session runs `query` and `transaction`. */
export type PgliteQueries = Pick<PGlite, 'query' | 'transaction'>;

/**
 * `client`'s `query` and its transactions' `query`, running named statements. A call with options this
 * does not handle (a blob, parameter types or serializers of its own) goes to the client's `query`.
 */
export function withNamedStatements(client: PGlite, { parse, protocol }: PgliteModule): PgliteQueries {
  const serialize = protocol.serialize;
  const statements = new Map<string, Statement>();
  const toClose: string[] = [];
  let counter = 0;

  function forget(text: string): void {
    const known = statements.get(text);
    if (!known) return;
    statements.delete(text);
    toClose.push(known.name);
  }

  /** Parses `text` as a new named statement and reads its parameters' types. */
  async function prepare(text: string): Promise<Statement> {
    const name = `s${++counter}`;
    const closes = toClose.splice(0).map((n) => serialize.close({ type: 'S', name: n }));
    const answer = await client.execProtocolStream(
      batch([...closes, serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()]),
      { syncToFs: false },
    );
    const described = answer.find((m) => m.name === 'parameterDescription') as { dataTypeIDs?: number[] } | undefined;
    const statement = { name, types: described?.dataTypeIDs ?? [] };
    statements.set(text, statement);
    if (statements.size > MAX_STATEMENTS) forget(statements.keys().next().value!);
    return statement;
  }

  async function run(text: string, params: unknown[], options: QueryOptions | undefined): Promise<Results> {
    let statement = statements.get(text);
    if (statement) {
      // Most recently run last: the first is the one to close.
      statements.delete(text);
      statements.set(text, statement);
    } else statement = await prepare(text);
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const write = client.serializers[statement.types[i]!];
      return write ? write(value) : String(value);
    });
    const answer: BackendMessage[] = await client.execProtocolStream(
      batch([
        serialize.bind({ statement: statement.name, values }),
        serialize.describe({ type: 'P' }),
        serialize.execute({}),
        serialize.sync(),
      ]),
      { syncToFs: false },
    );
    return parse.parseResults(answer, client.parsers, options)[0] as Results;
  }

  /** Runs `text`, preparing it again once if the database no longer holds it as it was. */
  async function runOnce(
    text: string,
    params: unknown[],
    options: QueryOptions | undefined,
    inTransaction: boolean,
  ): Promise<Results> {
    try {
      return await run(text, params, options);
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (typeof code !== 'string' || !STALE_STATEMENT.has(code)) throw withStatement(error, text, params, options);
      forget(text);
      if (code === '26000') statements.clear();
      // Within a transaction the error has ended it: the caller's transaction fails as it would have.
      if (inTransaction) throw withStatement(error, text, params, options);
      try {
        return await run(text, params, options);
      } catch (again) {
        throw withStatement(again, text, params, options);
      }
    }
  }

  const handled = (options: QueryOptions | undefined) =>
    !options || (!options.blob && !options.paramTypes && !options.serializers);

  async function query<T>(text: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<T>> {
    if (!handled(options)) return client.query<T>(text, params, options);
    await client._checkReady();
    return client._runExclusiveTransaction(() =>
      client._runExclusiveQuery(async () => {
        const result = await runOnce(text, params, options, false);
        await client.syncToFs();
        return result as Results<T>;
      }),
    );
  }

  function transaction<T>(callback: (tx: Transaction) => Promise<T>): Promise<T> {
    return client.transaction((tx) =>
      callback({
        query<R>(text: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<R>> {
          if (!handled(options) || tx.closed) return tx.query<R>(text, params, options);
          return client._runExclusiveQuery(async () => (await runOnce(text, params, options, true)) as Results<R>);
        },
        sql: tx.sql,
        exec: tx.exec,
        rollback: tx.rollback,
        listen: tx.listen,
        get closed() {
          return tx.closed;
        },
      }),
    );
  }

  return { query, transaction };
}
