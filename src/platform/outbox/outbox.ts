// A durable outbox: effects are written in the same transaction as the change that causes them, and
// a worker (outbox-worker.ts) delivers them afterwards with retries, so a crash between the two loses nothing.
import { eq, sql } from 'drizzle-orm';
import { backoffDelay } from '../backoff.ts';
import { dateOrNull, rowsOf, type Database, type DbExecutor } from '../db/database.ts';
import { outbox } from '../db/schema.ts';

/** A handler's name, e.g. `mail.send`: declared by the module that enqueues and handles it. */
export type OutboxKind = string;

export interface OutboxMessage<Kind extends string = OutboxKind> {
  kind: Kind;
  payload: Record<string, unknown>;
  /** A second message with the same key is dropped: the effect happens once. */
  dedupeKey?: string;
  availableAt?: Date;
  maxAttempts?: number;
}

/** Thrown by a handler to be tried again later (e.g. after a 429's Retry-After). */
export class RetryLater extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'RetryLater';
  }
}

/**
 * Thrown by a handler when the receiver asked us to wait (HTTP 429 and its Retry-After), whether
 * it said so just now or earlier and the wait is not over. The row waits exactly that long and the
 * attempt is given back: a receiver's rate limit says nothing about whether the message can be
 * delivered, so rate limiting alone never makes a dead letter.
 */
export class RateLimited extends RetryLater {
  constructor(
    message: string,
    override readonly retryAfterMs: number,
  ) {
    super(message, retryAfterMs);
    this.name = 'RateLimited';
  }
}

/** Thrown by a handler when retrying cannot help (e.g. a 400 from the receiver). */
export class PermanentFailure extends Error {
  override name = 'PermanentFailure';
}

export interface OutboxRow {
  id: string;
  kind: OutboxKind;
  payload: Record<string, unknown>;
  attempts: number;
  maxAttempts: number;
}

/**
 * Returns a short note stored with the delivered row, or nothing. `signal` aborts when the worker
 * stops (SIGTERM): a handler passes it to its request, and the row is given back for a later retry.
 */
export type OutboxHandler = (
  payload: Record<string, unknown>,
  row: OutboxRow,
  signal: AbortSignal,
) => Promise<string | void>;

/** Thrown when the worker stopped the delivery in progress: the row goes back, not counted as an attempt. */
export class DeliveryAborted extends Error {
  override name = 'DeliveryAborted';
}

/** `work`, or DeliveryAborted as soon as `signal` aborts (for clients that take no signal of their own). */
export function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new DeliveryAborted('the outbox worker is stopping'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new DeliveryAborted('the outbox worker is stopping'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** A module's enqueue, typed by the kinds it declares (the database's CHECK holds every module's kinds). */
export function outboxWriter<const Kind extends string>(_kinds: readonly Kind[]) {
  return {
    enqueue: (message: OutboxMessage<Kind>, now: Date, executor: DbExecutor) => enqueue(message, now, executor),
  };
}

/** Told, on commit, of every row enqueued (by any instance): the workers' wake-up (docs/decisions/620). */
export const OUTBOX_CHANNEL = 'outbox_enqueued';

/**
 * Returns the new row's id, or null when the dedupe key was already used. The same statement
 * notifies the workers: a notification sent in a transaction is delivered when it commits, and
 * never when it rolls back, so a worker is woken exactly when the row becomes visible to it.
 */
async function enqueue(message: OutboxMessage, now: Date, executor: DbExecutor): Promise<string | null> {
  const rows = rowsOf<{ id: string }>(
    await executor.execute(sql`
      WITH inserted AS (
        INSERT INTO outbox (kind, payload, dedupe_key, available_at, max_attempts, created_at)
        VALUES (${message.kind}, ${JSON.stringify(message.payload)}::jsonb, ${message.dedupeKey ?? null},
          ${(message.availableAt ?? now).toISOString()}::timestamptz, ${message.maxAttempts ?? 8},
          ${now.toISOString()}::timestamptz)
        ON CONFLICT DO NOTHING
        RETURNING id)
      SELECT id, pg_notify(${OUTBOX_CHANNEL}, '') AS notified FROM inserted`),
  );
  return rows[0]?.id ?? null;
}

/** Whether this failure ends the row as a dead letter (handlers that clean up on the last attempt ask this too). */
export function isFinalFailure(error: unknown, row: Pick<OutboxRow, 'attempts' | 'maxAttempts'>): boolean {
  if (error instanceof PermanentFailure) return true;
  return !(error instanceof RateLimited) && row.attempts >= row.maxAttempts;
}

/** The delay after failed attempt `attempt` (1-based): doubling from `baseMs` to an hour, plus up to 20%. */
export function backoffMs(attempt: number, baseMs: number): number {
  return backoffDelay(attempt - 1, { baseMs, maxMs: 60 * 60 * 1000, jitter: [1, 1.2] });
}

/** Replaces a row's payload, e.g. to wipe a sent mail's sealed content so the secret does not stay at rest. */
export async function replacePayload(
  executor: DbExecutor,
  id: string,
  payload: Record<string, unknown>,
): Promise<void> {
  await executor.update(outbox).set({ payload }).where(eq(outbox.id, id));
}

export interface KindStatus {
  pending: number;
  dead: number;
  lastSuccessAt: Date | null;
  lastError: string | null;
  /** When the attempt that produced `lastError` ended. */
  lastErrorAt: Date | null;
}

/**
 * Per kind, from the rows: what waits, what failed for good, the last delivery (a done row whose
 * note starts with `deliveredNote`) and the last failure still standing.
 */
export async function statusByKind(
  database: Pick<Database, 'rows'>,
  kinds: readonly OutboxKind[],
  deliveredNote: string,
): Promise<Record<string, KindStatus>> {
  const kindList = sql.join(
    kinds.map((k) => sql`${k}`),
    sql`, `,
  );
  const [counts, errors] = await Promise.all([
    database.rows<{ kind: string; pending: number; dead: number; last_success_at: Date | string | null }>(sql`
      SELECT kind,
        count(*) FILTER (WHERE status IN ('pending', 'processing'))::int AS pending,
        count(*) FILTER (WHERE status = 'dead')::int AS dead,
        max(processed_at) FILTER (WHERE status = 'done' AND result LIKE ${`${deliveredNote}%`}) AS last_success_at
      FROM outbox WHERE kind IN (${kindList}) GROUP BY kind`),
    // A row that later succeeds has its error cleared, so these are the failures still standing.
    database.rows<{ kind: string; last_error: string; last_error_at: Date | string | null }>(sql`
      SELECT DISTINCT ON (kind) kind, last_error, processed_at AS last_error_at FROM outbox
      WHERE kind IN (${kindList}) AND last_error IS NOT NULL
      ORDER BY kind, processed_at DESC NULLS LAST, available_at DESC`),
  ]);
  return Object.fromEntries(
    kinds.map((kind) => {
      const count = counts.find((c) => c.kind === kind);
      return [
        kind,
        {
          pending: Number(count?.pending ?? 0),
          dead: Number(count?.dead ?? 0),
          lastSuccessAt: dateOrNull(count?.last_success_at),
          lastError: errors.find((e) => e.kind === kind)?.last_error ?? null,
          lastErrorAt: dateOrNull(errors.find((e) => e.kind === kind)?.last_error_at),
        },
      ];
    }),
  );
}
