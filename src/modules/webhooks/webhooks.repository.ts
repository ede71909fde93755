// Stored deliveries: the claim that makes a delivery id count once, and the figures the dashboard
// and the health endpoints read.
import { and, eq, gt, inArray, lt, sql, type SQL } from 'drizzle-orm';
import { dateOrNull, type Db, type DbExecutor } from '../../platform/db/database.ts';
import { executePrepared } from '../../platform/db/prepared.ts';
import { ADVISORY_LOCK_NAMESPACE } from '../../platform/db/advisory-locks.ts';
import { webhookDeliveries, webhookDeliveryCounts, webhookDeliveryHours } from './webhooks.tables.ts';
import { descending } from '../../platform/db/order.ts';
import type { DeliveryStatus } from './deliveries.domain.ts';

interface NewDelivery {
  provider: string;
  deliveryId: string;
  contentKey?: string;
  event: string;
  payload: unknown;
  verified: boolean;
  receivedAt: Date;
}

/** A provider's deliveries in one status, of some events, whose payload has `value` at `path`. */
export interface DeliveryQuery {
  provider: string;
  status: DeliveryStatus;
  events: readonly string[];
  path: readonly string[];
  value: string;
}

/** A delivery its body names too: with the sender's id, if any (decision 099). */
type ContentDelivery = Omit<NewDelivery, 'deliveryId'> & { senderId?: string };

export interface StoredDelivery {
  deliveryId: string;
  event: string;
  payload: Record<string, unknown>;
}

/**
 * A provider's deliveries in one status, of some events, whose payload has `value` at `path` (or at
 * `path` + `id`, for an expanded object), newest first by the body's `created` (seconds), then by
 * receipt. `lock`: held until the transaction ends, so two deliveries settling the same rows at once
 * settle each one once.
 */
async function findDeliveries(
  tx: DbExecutor,
  where: DeliveryQuery,
  options: { limit?: number; lock?: boolean } = {},
): Promise<StoredDelivery[]> {
  const path = `{${where.path.join(',')}}`;
  const idPath = `{${[...where.path, 'id'].join(',')}}`;
  const created = sql`CASE WHEN jsonb_typeof(${webhookDeliveries.payload}->'created') = 'number'
    THEN (${webhookDeliveries.payload}->>'created')::numeric END`;
  const query = tx
    .select({
      deliveryId: webhookDeliveries.deliveryId,
      event: webhookDeliveries.event,
      payload: sql<Record<string, unknown>>`${webhookDeliveries.payload}`,
    })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.provider, where.provider),
        eq(webhookDeliveries.status, where.status),
        inArray(webhookDeliveries.event, [...where.events]),
        sql`COALESCE(${webhookDeliveries.payload} #>> ${idPath}::text[],
          ${webhookDeliveries.payload} #>> ${path}::text[]) = ${where.value}`,
      ),
    )
    .orderBy(descending(created), descending(webhookDeliveries.receivedAt), descending(webhookDeliveries.deliveryId))
    .limit(options.limit ?? 1000)
    .$dynamic();
  return options.lock ? query.for('update') : query;
}

/** Ends the wait of held deliveries: the one applied becomes `processed`, the others `superseded`. */
async function settleHeld(
  tx: DbExecutor,
  provider: string,
  deliveryIds: string[],
  status: 'processed' | 'superseded',
  at: Date,
): Promise<void> {
  if (deliveryIds.length === 0) return;
  await tx
    .update(webhookDeliveries)
    .set({ status, processedAt: at })
    .where(
      and(
        eq(webhookDeliveries.provider, provider),
        inArray(webhookDeliveries.deliveryId, deliveryIds),
        eq(webhookDeliveries.status, 'unmatched'),
      ),
    );
}

/** `new`: first time; `retry`: seen before but its processing failed; `duplicate`: already done. */
export type Claim = 'new' | 'retry' | 'duplicate';

interface ProviderActivity {
  provider: string;
  lastDeliveryAt: Date | null;
  lastProcessedAt: Date | null;
  lastError: string | null;
}

interface ProviderOutcome {
  provider: string;
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  lastFailure: string | null;
}

/**
 * Stores the delivery or finds the one stored before. Concurrent claims of one id serialise on the
 * unique index: the second waits for the first to commit, then sees it.
 */
async function claim(delivery: NewDelivery, tx: DbExecutor): Promise<Claim> {
  const inserted = await tx
    .insert(webhookDeliveries)
    .values({ ...delivery, status: 'processing' })
    .onConflictDoNothing()
    .returning({ id: webhookDeliveries.id });
  if (inserted.length > 0) return 'new';
  const where = and(
    eq(webhookDeliveries.provider, delivery.provider),
    eq(webhookDeliveries.deliveryId, delivery.deliveryId),
  );
  const [existing] = await tx
    .select({ status: webhookDeliveries.status })
    .from(webhookDeliveries)
    .where(where)
    .for('update');
  if (existing?.status !== 'failed') return 'duplicate';
  await tx
    .update(webhookDeliveries)
    .set({
      payload: delivery.payload,
      event: delivery.event,
      status: 'processing',
      attempts: sql`${webhookDeliveries.attempts} + 1`,
    })
    .where(where);
  return 'retry';
}

/** Content keys of bodies matched for as long as deliveries are kept (decision 842): no window in them. */
const KEPT = 'kept';
/** The window signed bodies were matched within before decision 842, still looked up for their rows. */
const FORMER_REPLAY_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

/** `<digest>@<start of the window>` for the window `at` falls in and its two neighbours. */
function windowKeys(digest: string, at: number, windowMs: number): string[] {
  const start = Math.floor(at / windowMs) * windowMs;
  return [start, start - windowMs, start + windowMs].map(
    (windowStart) => `${digest}@${new Date(windowStart).toISOString()}`,
  );
}

/**
 * A delivery its body names too (decision 099): the same body within `windowMs` of a stored copy is
 * that delivery again, whatever id it comes with; further apart, a new one. Content keys are
 * `<digest>@<start of the window>`, so a copy can only sit under this window's key or a
 * neighbour's: three exact lookups on an index. The next window counts too: instances' clocks
 * differ, and a copy stamped later may be stored first. An infinite `windowMs` (signed bodies whose
 * signature covers no id nor time, decision 842) keys the body `<digest>@kept`, matched for as long as
 * the deliveries are kept, as their ids are; rows stored under the former 30-day windows are looked up
 * too. Without a sender id, the key is the id.
 */
async function claimByContent(
  tx: DbExecutor,
  delivery: ContentDelivery,
  content: { digest: string; windowMs: number },
): Promise<{ claim: Claim; deliveryId: string }> {
  const { senderId, ...fields } = delivery;
  const { digest, windowMs } = content;
  // Identical bodies arriving together (on two instances, or either side of a window's
  // start) would each miss the other.
  await tx.execute(
    sql`SELECT pg_advisory_xact_lock(${ADVISORY_LOCK_NAMESPACE.webhookContent}::int,
      hashtext(${`${delivery.provider}:${digest}`}))`,
  );
  const at = delivery.receivedAt.getTime();
  const kept = !Number.isFinite(windowMs);
  const keys = kept
    ? [`${digest}@${KEPT}`, ...windowKeys(digest, at, FORMER_REPLAY_WINDOW_MS)]
    : windowKeys(digest, at, windowMs);
  const [copy] = await tx
    .select({ deliveryId: webhookDeliveries.deliveryId })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.provider, delivery.provider),
        inArray(webhookDeliveries.contentKey, keys),
        kept ? undefined : gt(webhookDeliveries.receivedAt, new Date(at - windowMs)),
        kept ? undefined : lt(webhookDeliveries.receivedAt, new Date(at + windowMs)),
      ),
    )
    .orderBy(descending(webhookDeliveries.receivedAt))
    .limit(1);
  const deliveryId = copy?.deliveryId ?? senderId ?? keys[0]!;
  return { claim: await claim({ ...fields, deliveryId, contentKey: keys[0] }, tx), deliveryId };
}

/**
 * Stored deliveries and the figures read from them. The figures are read per provider, from the
 * known list: each is one short walk of an index (provider first), so their cost follows what they
 * show, never the table's size (decision 123).
 */
export function createDeliveryRepository(db: Db, providers: readonly string[]) {
  /** One row per provider with the given columns (`p.provider` names it) and joins. */
  const known = sql`ARRAY[${sql.join(
    providers.map((provider) => sql`${provider}`),
    sql`, `,
  )}]::text[]`;
  const perProvider = async <T>(columns: SQL, joins: SQL = sql``): Promise<T[]> => {
    const result = await executePrepared(
      db,
      'provider_figures',
      sql`SELECT p.provider, ${columns} FROM unnest(${known}) AS p(provider) ${joins}`,
    );
    return (result as unknown as { rows: T[] }).rows;
  };

  // The claims and the held deliveries run in a delivery's transaction: the executor comes last.
  return {
    claim: (delivery: NewDelivery, executor: DbExecutor = db) => claim(delivery, executor),

    claimByContent: (
      delivery: ContentDelivery,
      content: { digest: string; windowMs: number },
      executor: DbExecutor = db,
    ) => claimByContent(executor, delivery, content),

    findDeliveries: (
      where: DeliveryQuery,
      options: { limit?: number; lock?: boolean } = {},
      executor: DbExecutor = db,
    ) => findDeliveries(executor, where, options),

    settleHeld: (
      provider: string,
      deliveryIds: string[],
      status: 'processed' | 'superseded',
      at: Date,
      executor: DbExecutor = db,
    ) => settleHeld(executor, provider, deliveryIds, status, at),

    async finish(
      key: { provider: string; deliveryId: string },
      outcome: { status: DeliveryStatus; error: string | null; at: Date },
      executor: DbExecutor = db,
    ): Promise<void> {
      await executor
        .update(webhookDeliveries)
        .set({ status: outcome.status, error: outcome.error, processedAt: outcome.at })
        .where(and(eq(webhookDeliveries.provider, key.provider), eq(webhookDeliveries.deliveryId, key.deliveryId)));
    },

    /** Deliveries kept `unmatched` per provider, from the counts the database keeps (docs/decisions/124). */
    async unmatchedCounts(): Promise<Record<string, number>> {
      const rows = await perProvider<{ provider: string; total: number }>(
        sql`coalesce((SELECT c.n FROM ${webhookDeliveryCounts} c
          WHERE c.provider = p.provider AND c.status = 'unmatched'), 0)::int AS total`,
      );
      return Object.fromEntries(rows.map((row) => [row.provider, row.total]));
    },

    async countsSince(since: Date): Promise<Record<string, number>> {
      // Whole hours from the counts the database keeps (docs/decisions/124), the part of the
      // first hour from the deliveries.
      const nextHour = new Date(Math.ceil(since.getTime() / 3_600_000) * 3_600_000);
      const rows = await perProvider<{ provider: string; total: number }>(
        sql`((SELECT coalesce(sum(h.n), 0) FROM ${webhookDeliveryHours} h
              WHERE h.provider = p.provider AND h.hour >= ${nextHour})
            + (SELECT count(*) FROM ${webhookDeliveries} d
              WHERE d.provider = p.provider AND d.received_at >= ${since}
                AND d.received_at < ${nextHour}))::int AS total`,
      );
      return Object.fromEntries(rows.map((row) => [row.provider, row.total]));
    },

    /** Per provider: the last successfully processed delivery, and the latest failure still standing. */
    async outcomes(): Promise<ProviderOutcome[]> {
      // A failed delivery that the sender retried successfully is `processed` now: what stays failed still stands.
      const rows = await perProvider<{
        provider: string;
        success_at: Date | string | null;
        failed: boolean | null;
        failure_at: Date | string | null;
        error: string | null;
      }>(
        sql`(SELECT d.processed_at FROM ${webhookDeliveries} d WHERE d.provider = p.provider AND d.status = 'processed'
              ORDER BY d.processed_at DESC NULLS LAST LIMIT 1) AS success_at,
            f.failed, f.processed_at AS failure_at, f.error`,
        sql`LEFT JOIN LATERAL (SELECT true AS failed, d.processed_at, d.error FROM ${webhookDeliveries} d
              WHERE d.provider = p.provider AND d.status = 'failed'
              ORDER BY d.processed_at DESC NULLS LAST LIMIT 1) f ON true`,
      );
      return rows.map((row) => ({
        provider: row.provider,
        lastSuccessAt: dateOrNull(row.success_at),
        lastFailureAt: dateOrNull(row.failure_at),
        lastFailure: row.failed ? (row.error ?? 'processing failed') : null,
      }));
    },

    /** Per provider: the latest receipt, and the outcome of the latest processing attempt. */
    async activity(): Promise<ProviderActivity[]> {
      const rows = await perProvider<{
        provider: string;
        received_at: Date | string | null;
        processed_at: Date | string | null;
        error: string | null;
      }>(
        sql`(SELECT d.received_at FROM ${webhookDeliveries} d WHERE d.provider = p.provider
              ORDER BY d.received_at DESC NULLS LAST LIMIT 1) AS received_at,
            l.processed_at, l.error`,
        sql`LEFT JOIN LATERAL (SELECT d.processed_at, d.error FROM ${webhookDeliveries} d
              WHERE d.provider = p.provider ORDER BY d.processed_at DESC NULLS LAST LIMIT 1) l ON true`,
      );
      return rows.map((row) => ({
        provider: row.provider,
        lastDeliveryAt: dateOrNull(row.received_at),
        lastProcessedAt: dateOrNull(row.processed_at),
        lastError: row.error,
      }));
    },
  };
}

export type DeliveryRepository = ReturnType<typeof createDeliveryRepository>;
