// The outbox's worker: claims due rows, hands each to its kind's handler and settles it (delivered, retried
// with back-off, or a dead letter); woken by the enqueue's commit and by the earliest due row (decision 620).
import { and, eq, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import { databaseOutage, dateOrNull, isDatabaseUnavailable, type Database } from '../db/database.ts';
import { outbox } from '../db/schema.ts';
import {
  backoffMs,
  isFinalFailure,
  OUTBOX_CHANNEL,
  type OutboxHandler,
  type OutboxKind,
  type OutboxRow,
  RateLimited,
  RetryLater,
} from './outbox.ts';

export interface OutboxWorkerOptions {
  database: Database;
  clock: Clock;
  logger: Logger;
  /**
   * How soon the worker polls again when it cannot be told of new rows (its LISTEN failed) or a
   * poll failed. Default 1 s.
   */
  pollMs?: number;
  /**
   * The longest the worker sleeps while it listens: a fallback for what no notification or due time
   * announces. Default 60 s (docs/decisions/620).
   */
  idlePollMs?: number;
  batchSize?: number;
  /** How long a claimed row is ours; after it another worker may take it (crash recovery). */
  leaseMs?: number;
  baseBackoffMs?: number;
}

export interface OutboxWorker {
  register(kind: OutboxKind, handler: OutboxHandler): void;
  /**
   * Claims at once, then sleeps until a row is enqueued (any instance's, told on its commit), the
   * earliest pending row is due or the earliest lease runs out, at most `idlePollMs`.
   */
  start(): void;
  /**
   * Stops polling and listening, aborts the delivery in progress and gives back the rows of the batch in hand
   * (pending again, the attempt not counted), then waits for that to be written.
   */
  stop(): Promise<void>;
  /** Claims and handles one batch; returns how many rows it handled. */
  runOnce(): Promise<number>;
  /** Runs batches until nothing is due. */
  drain(): Promise<void>;
  stats(): Promise<{ pending: number; processing: number; dead: number; done: number }>;
}

/** How soon a worker looks again for a row that is due but was not claimable when it looked. */
const DUE_RETRY_MS = 50;

export function createOutboxWorker(options: OutboxWorkerOptions): OutboxWorker {
  const { database, clock, logger } = options;
  const { db } = database;
  const pollMs = options.pollMs ?? 1000;
  const idlePollMs = options.idlePollMs ?? 60_000;
  const batchSize = options.batchSize ?? 20;
  const leaseMs = options.leaseMs ?? 60_000;
  const baseBackoffMs = options.baseBackoffMs ?? 2_000;
  const handlers = new Map<string, OutboxHandler>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  /** A batch is in hand: a wake-up now only asks for another batch after it. */
  let busy = false;
  let again = false;
  let stopped = true;
  /** Set once the LISTEN is in place; until then (or if it fails) the worker polls every `pollMs`. */
  let unlisten: (() => Promise<void>) | undefined;
  let listening: Promise<void> | undefined;
  /** Aborted by stop(): the delivery in progress ends at once. */
  let stopping = new AbortController();

  async function claim(): Promise<OutboxRow[]> {
    const now = clock.now();
    const leaseUntil = new Date(now.getTime() + leaseMs);
    const kinds = [...handlers.keys()];
    if (kinds.length === 0) return [];
    // The CTE locks exactly the rows it picks (a LIMIT inside `IN (...)` may be re-evaluated by
    // the planner); SKIP LOCKED lets concurrent workers pick disjoint rows. A 'processing' row
    // whose lease ran out belongs to a worker that died: it is taken over.
    const rows = await database.rows<OutboxRow & { availableAt: string | Date; createdAt: string | Date }>(sql`
      WITH picked AS (
        SELECT id FROM outbox
        WHERE kind IN (${sql.join(
          kinds.map((k) => sql`${k}`),
          sql`, `,
        )})
          AND ((status = 'pending' AND available_at <= ${now.toISOString()}::timestamptz)
            OR (status = 'processing' AND locked_until < ${now.toISOString()}::timestamptz))
        ORDER BY available_at, created_at
        LIMIT ${batchSize}
        FOR UPDATE SKIP LOCKED)
      UPDATE outbox SET status = 'processing', attempts = outbox.attempts + 1,
        locked_until = ${leaseUntil.toISOString()}::timestamptz
      FROM picked WHERE outbox.id = picked.id
      RETURNING outbox.id, outbox.kind, outbox.payload, outbox.attempts,
        outbox.max_attempts AS "maxAttempts", outbox.available_at AS "availableAt", outbox.created_at AS "createdAt"`);
    // Oldest due first, and among rows due at the same instant (e.g. all held back by one 429) the
    // order they were queued in.
    const time = (value: string | Date) => new Date(value).getTime();
    return rows
      .sort((a, b) => time(a.availableAt) - time(b.availableAt) || time(a.createdAt) - time(b.createdAt))
      .map(({ id, kind, payload, attempts, maxAttempts }) => ({
        id,
        kind,
        payload,
        attempts: Number(attempts),
        maxAttempts: Number(maxAttempts),
      }));
  }

  /** Only the claim that is still ours: after a lease ran out another worker may own the row. */
  const stillOurs = (row: OutboxRow) =>
    and(eq(outbox.id, row.id), eq(outbox.status, 'processing'), eq(outbox.attempts, row.attempts));

  async function settle(row: OutboxRow, outcome: { result?: string } | { error: unknown }): Promise<void> {
    const now = clock.now();
    if (!('error' in outcome)) {
      await db
        .update(outbox)
        .set({ status: 'done', processedAt: now, lockedUntil: null, lastError: null, result: outcome.result ?? null })
        .where(stillOurs(row));
      return;
    }
    const error = outcome.error;
    const message = error instanceof Error ? error.message : String(error);
    const dead = isFinalFailure(error, row);
    const rateLimited = error instanceof RateLimited;
    const retryAfter = error instanceof RetryLater ? (error.retryAfterMs ?? 0) : 0;
    const delay = rateLimited ? retryAfter : Math.max(backoffMs(row.attempts, baseBackoffMs), retryAfter);
    logger.warn(
      { outboxId: row.id, kind: row.kind, attempts: row.attempts, dead, rateLimited, error: message },
      'outbox delivery failed',
    );
    await db
      .update(outbox)
      .set({
        status: dead ? 'dead' : 'pending',
        // The claim counted an attempt; a wait the receiver asked for gives it back. The claim token
        // stays sound: the row is pending after the give-back and every claim adds one again, so a
        // worker whose lease ran out can never find its old count on a row in processing.
        attempts: rateLimited ? row.attempts - 1 : undefined,
        lastError: message.slice(0, 2000),
        lockedUntil: null,
        availableAt: dead ? undefined : new Date(now.getTime() + delay),
        // When this attempt ended, also for a retry: the dashboard dates the standing error by it.
        processedAt: now,
      })
      .where(stillOurs(row));
  }

  /** A claimed row the worker did not finish because it is stopping: pending again at once, its attempt given back. */
  async function giveBack(row: OutboxRow): Promise<void> {
    await db
      .update(outbox)
      .set({ status: 'pending', attempts: row.attempts - 1, lockedUntil: null, availableAt: clock.now() })
      .where(stillOurs(row));
  }

  async function runOnce(): Promise<number> {
    const rows = await claim();
    const { signal } = stopping;
    for (const row of rows) {
      if (signal.aborted) {
        await giveBack(row);
        continue;
      }
      const handler = handlers.get(row.kind)!;
      try {
        const result = await handler(row.payload, row, signal);
        await settle(row, { result: result ?? undefined });
      } catch (error) {
        if (signal.aborted) {
          logger.info(
            { outboxId: row.id, kind: row.kind },
            'outbox delivery stopped by shutdown; the row is given back',
          );
          await giveBack(row);
        } else await settle(row, { error });
      }
    }
    return rows.length;
  }

  /** When the worker must look again: the earliest pending row's due time or lease's end of its kinds. */
  async function nextDue(): Promise<Date | null> {
    const kinds = [...handlers.keys()];
    if (kinds.length === 0) return null;
    const kindList = sql.join(
      kinds.map((k) => sql`${k}`),
      sql`, `,
    );
    const [row] = await database.rows<{ due: string | Date | null }>(sql`
      SELECT least(
        (SELECT min(available_at) FROM outbox WHERE status = 'pending' AND kind IN (${kindList})),
        (SELECT min(locked_until) FROM outbox WHERE status = 'processing' AND kind IN (${kindList}))) AS due`);
    return dateOrNull(row?.due);
  }

  function schedule(delayMs: number): void {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(tick, delayMs);
  }

  /** How long to sleep after a batch of `count` rows. */
  async function sleepAfter(count: number): Promise<number> {
    // A full batch means more may be waiting: go again at once.
    if (count >= batchSize) return 0;
    const longest = unlisten ? idlePollMs : pollMs;
    const due = await nextDue();
    if (due === null) return longest;
    const wait = due.getTime() - clock.now().getTime();
    // Due already but not claimed: it became due after this batch's claim read (a lease that ran out
    // meanwhile, count > 0 or not), or another worker holds it for a moment. Either passes at once: look
    // again shortly, not after a whole poll (60 s for a worker that only sleeps).
    if (wait <= 0) return count > 0 ? 0 : Math.min(DUE_RETRY_MS, pollMs, longest);
    // A lease is over once it is past (the claim's `locked_until < now`): a millisecond after it.
    return Math.min(wait + 1, longest);
  }

  function failed(error: unknown): void {
    // A database outage is logged once (decision 102), not once a poll.
    if (!isDatabaseUnavailable(error)) logger.error({ err: error }, 'outbox poll failed');
    else if (databaseOutage.failed())
      logger.warn({ err: error }, 'outbox poll failed: database unavailable; retrying every poll');
  }

  function tick(): void {
    timer = undefined;
    if (stopped) return;
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    again = false;
    running = runOnce()
      .then(sleepAfter)
      .catch((error: unknown) => {
        failed(error);
        return pollMs;
      })
      .then((delay) => {
        busy = false;
        // Told of a row while this batch was in hand: it may not have been visible to the claim.
        schedule(again ? 0 : delay);
      });
  }

  /** A row was enqueued somewhere and committed, or the LISTEN was lost and is back. */
  const wake = () => {
    if (busy) again = true;
    else schedule(0);
  };

  function listen(): void {
    listening = database.listen(OUTBOX_CHANNEL, wake, wake).then(
      async (stop) => {
        if (stopped) return stop();
        unlisten = stop;
        // Rows enqueued before the LISTEN was in place were announced to no one.
        wake();
      },
      (error: unknown) => {
        logger.warn({ err: error }, `outbox: cannot listen for new rows; polling every ${pollMs} ms`);
      },
    );
  }

  return {
    register(kind, handler) {
      handlers.set(kind, handler);
    },
    start() {
      if (!stopped) return;
      stopped = false;
      if (stopping.signal.aborted) stopping = new AbortController();
      listen();
      schedule(0);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      stopping.abort();
      await listening;
      const stop = unlisten;
      unlisten = undefined;
      await Promise.all([running, stop?.()]);
    },
    runOnce,
    async drain() {
      while ((await runOnce()) > 0) {
        // keep going until nothing is due
      }
    },
    async stats() {
      const rows = await database.rows<{ status: string; count: number }>(
        sql`SELECT status, count(*)::int AS count FROM outbox GROUP BY status`,
      );
      const counts = { pending: 0, processing: 0, dead: 0, done: 0 };
      for (const row of rows) if (row.status in counts) counts[row.status as keyof typeof counts] = Number(row.count);
      return counts;
    },
  };
}
