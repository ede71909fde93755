// How a database failure is told apart: unreachable or silent (an outage), a statement stopped at the
// server's bound (slow, decision 121), or a burst larger than the pool (busy); and the state that says
// whether an outage or a burst is under way, so each is logged once.

/** The client's own bound on a statement (pg's `query_timeout`), as pg words it. */
export const QUERY_READ_TIMEOUT = 'Query read timeout';

/** An outage is also over once no request has met it for this long. */
const OUTAGE_QUIET_MS = 10_000;

/**
 * Whether the database is in an outage, as far as requests can tell: it begins with the first
 * request that finds it unreachable and ends when a pool opens a connection again (or after a quiet
 * spell). The error handler logs one warning per outage instead of one error per request.
 */
export const databaseOutage = {
  lastFailureAt: 0,
  failures: 0,
  /** Notes a failure; true when it begins a new outage (the one to log). */
  failed(now = Date.now()): boolean {
    const ongoing = this.failures > 0 && now - this.lastFailureAt <= OUTAGE_QUIET_MS;
    this.lastFailureAt = now;
    this.failures = ongoing ? this.failures + 1 : 1;
    return !ongoing;
  },
  /** A pool opened a connection: whatever outage there was is over. */
  connected(): void {
    this.failures = 0;
  },
  /** When a pooled statement last came back from the database, and how long a request waits for a connection. */
  answeredAt: 0,
  poolWaitMs: 0,
  saturatedAt: 0,
  /** Notes a request that waited its whole bound for a connection; true when it begins an episode (the one to log). */
  saturated(now = Date.now()): boolean {
    const ongoing = now - this.saturatedAt <= OUTAGE_QUIET_MS;
    this.saturatedAt = now;
    return !ongoing;
  },
};

const POOL_WAIT_TIMEOUT = 'timeout exceeded when trying to connect';

/**
 * Whether a request waited its whole bound for a pooled connection while the database kept
 * answering the others (a statement came back during the wait): a burst larger than the pool, not
 * an outage (decision 121). pg words both the same way, so the answers during the wait tell them apart.
 * Only an answer in the wait's later half counts: timers measure from the event loop's cached time,
 * so an answer just before the wait began can look like one within its bound; in a burst, statements
 * keep coming back all through the wait.
 */
export function isPoolSaturated(error: unknown, now = Date.now()): boolean {
  let waited = false;
  for (let current = error, depth = 0; current instanceof Error && depth <= 8 && !waited; depth++) {
    waited = current.message === POOL_WAIT_TIMEOUT;
    current = current.cause;
  }
  return waited && now - databaseOutage.answeredAt <= databaseOutage.poolWaitMs / 2;
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  POOL_WAIT_TIMEOUT,
  QUERY_READ_TIMEOUT,
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
  'PGlite is closed',
];

/**
 * Whether an error (or one of its causes) says the database cannot be reached or did not answer in
 * time, rather than that a statement is wrong: a refused, reset or timed-out connection, SQLSTATE
 * class 08 (connection exception), 57P01-57P03 (shutdown, cannot connect now) or 53300 (too many
 * connections). A statement the server stopped at its statement_timeout is `isStatementTimeout`.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 8) return false;
  const { code, message, cause } = error as { code?: unknown; message?: unknown; cause?: unknown };
  if (typeof code === 'string') {
    if (UNAVAILABLE_CODES.has(code)) return true;
    if (/^(08...|57P0[1-3]|53300)$/.test(code)) return true;
  }
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((known) => message.startsWith(known))) return true;
  return isDatabaseUnavailable(cause, depth + 1);
}

/** The statement a database stopped at its statement_timeout (SQLSTATE 57014), as drizzle names it. */
interface SlowStatement {
  /** The statement's text, without its parameters; empty when no query error carried it. */
  query: string;
}

/** Whether an error (or one of its causes) is a statement the server stopped at its statement_timeout. */
export function statementTimeoutOf(error: unknown): SlowStatement | undefined {
  let query = '';
  for (let current = error, depth = 0; current && typeof current === 'object' && depth <= 8; depth++) {
    const { code, query: text, cause } = current as { code?: unknown; query?: unknown; cause?: unknown };
    if (typeof text === 'string' && !query) query = text;
    if (code === '57014') return { query };
    current = cause;
  }
  return undefined;
}
