// Every query of the signals module: hooks, their counters, and the claimed alerts.
import { and, asc, eq, isNull, lt, sql } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import type { OwedAlert, SignalMode } from './alerts.domain.ts';
import { signalAlerts, signalHooks } from './signals.tables.ts';

export type HookRow = typeof signalHooks.$inferSelect;

export interface NewHook {
  userId: string;
  name: string;
  mode: SignalMode;
  exchange: string;
  maxLagSeconds: number;
  allowedIps: string[] | null;
  secretHash: string;
}

/** An error kept on a hook: one line, bounded. */
const errorText = (error: string) => error.slice(0, 500);

/** The claim as its holder (the copy that wrote `claimed`) left it: no order yet, not taken over since. */
const heldBy = (hookId: string, alertKey: string, claimed: Date) =>
  and(
    eq(signalAlerts.hookId, hookId),
    eq(signalAlerts.alertKey, alertKey),
    eq(signalAlerts.receivedAt, claimed),
    isNull(signalAlerts.orderId),
  );

export function createSignalsRepository(db: DbExecutor) {
  /**
   * Takes over a claim left without an order since before `takeOverBefore`, writing `now` as its holder's
   * time (and the alert it now owes, when a repeat brings one). The row is locked by the first of two
   * concurrent updates; the second re-reads it and no longer matches (its time is now), so it takes nothing.
   */
  async function takeOver(
    hookId: string,
    alertKey: string,
    now: Date,
    takeOverBefore: Date,
    alert: OwedAlert | null = null,
  ): Promise<boolean> {
    const taken = await db
      .update(signalAlerts)
      .set(alert ? { receivedAt: now, alert } : { receivedAt: now })
      .where(
        and(
          eq(signalAlerts.hookId, hookId),
          eq(signalAlerts.alertKey, alertKey),
          isNull(signalAlerts.orderId),
          lt(signalAlerts.receivedAt, takeOverBefore),
        ),
      )
      .returning({ hookId: signalAlerts.hookId });
    return taken.length > 0;
  }

  return {
    async insert(hook: NewHook, now: Date, executor: DbExecutor = db): Promise<HookRow> {
      const [row] = await executor
        .insert(signalHooks)
        .values({ ...hook, createdAt: now })
        .returning();
      return row!;
    },

    listOf(userId: string): Promise<HookRow[]> {
      return db
        .select()
        .from(signalHooks)
        .where(eq(signalHooks.userId, userId))
        .orderBy(asc(signalHooks.createdAt), asc(signalHooks.id));
    },

    /** Any user's hook: the alert route knows only its id. */
    async byId(id: string): Promise<HookRow | undefined> {
      const [row] = await db.select().from(signalHooks).where(eq(signalHooks.id, id)).limit(1);
      return row;
    },

    /** Replaces the secret's hash of the user's hook; undefined when the user has no such hook. */
    async setSecret(userId: string, id: string, secretHash: string, executor: DbExecutor = db) {
      const [row] = await executor
        .update(signalHooks)
        .set({ secretHash })
        .where(and(eq(signalHooks.id, id), eq(signalHooks.userId, userId)))
        .returning();
      return row;
    },

    /** Deletes every hook of the user (their claimed alerts with them), answering their ids and names (decision 790). */
    async removeAllOf(userId: string, executor: DbExecutor): Promise<{ id: string; name: string }[]> {
      return executor
        .delete(signalHooks)
        .where(eq(signalHooks.userId, userId))
        .returning({ id: signalHooks.id, name: signalHooks.name });
    },

    async remove(userId: string, id: string, executor: DbExecutor = db): Promise<HookRow | undefined> {
      const [row] = await executor
        .delete(signalHooks)
        .where(and(eq(signalHooks.id, id), eq(signalHooks.userId, userId)))
        .returning();
      return row;
    },

    /**
     * The alert was refused (401, 413, 422, 429); `error` says why. Without it (a wrong secret) only the
     * count moves: whoever lacks the secret cannot overwrite what the owner reads on the hook.
     */
    async countRefused(id: string, error: string | null, now: Date): Promise<void> {
      await db
        .update(signalHooks)
        .set({
          alertsRefused: sql`${signalHooks.alertsRefused} + 1`,
          ...(error === null ? {} : { lastAlertAt: now, lastError: errorText(error) }),
        })
        .where(eq(signalHooks.id, id));
    },

    async countAccepted(id: string, now: Date): Promise<void> {
      await db
        .update(signalHooks)
        .set({ alertsAccepted: sql`${signalHooks.alertsAccepted} + 1`, lastAlertAt: now })
        .where(eq(signalHooks.id, id));
    },

    /** An alert that neither made an order nor counts as refused (the order step failed otherwise). */
    async noteError(id: string, error: string, now: Date): Promise<void> {
      await db
        .update(signalHooks)
        .set({ lastAlertAt: now, lastError: errorText(error) })
        .where(eq(signalHooks.id, id));
    },

    /**
     * Claims the alert for this request: `claimed` (with the claim's time, which only its holder writes)
     * when it is the first with this key, or when it takes over a claim left without an order since before
     * `takeOverBefore` (decision 710): one statement that only one copy can win. Otherwise the order the
     * first one made (null while that one may still be placing it).
     */
    async claim(
      hookId: string,
      alertKey: string,
      now: Date,
      takeOverBefore: Date,
      alert: OwedAlert | null = null,
    ): Promise<{ claimed: Date; takenOver: boolean } | { orderId: string | null }> {
      const inserted = await db
        .insert(signalAlerts)
        .values({ hookId, alertKey, receivedAt: now, alert })
        .onConflictDoNothing()
        .returning({ hookId: signalAlerts.hookId });
      if (inserted.length > 0) return { claimed: now, takenOver: false };
      if (await takeOver(hookId, alertKey, now, takeOverBefore, alert)) return { claimed: now, takenOver: true };
      const [row] = await db
        .select({ orderId: signalAlerts.orderId })
        .from(signalAlerts)
        .where(and(eq(signalAlerts.hookId, hookId), eq(signalAlerts.alertKey, alertKey)))
        .limit(1);
      // Released between the statements (its order refused): the caller may claim it again.
      return row ? { orderId: row.orderId } : { orderId: null };
    },

    async placed(hookId: string, alertKey: string, orderId: string): Promise<void> {
      await db
        .update(signalAlerts)
        .set({ orderId, alert: null })
        .where(and(eq(signalAlerts.hookId, hookId), eq(signalAlerts.alertKey, alertKey)));
    },

    /**
     * The claimed alert made no order: a later copy may try again. Only the claim this copy holds (its
     * time, `claimed`): a claim another copy has taken over since is that copy's (decision 710).
     */
    async release(hookId: string, alertKey: string, claimed: Date): Promise<void> {
      await db.delete(signalAlerts).where(heldBy(hookId, alertKey, claimed));
    },

    /**
     * Up to `limit` claims still owing their alert's order whose holder has not written since before
     * `before` (decision 1160), oldest first, with the owed alert and the holder's time.
     */
    async owed(
      before: Date,
      limit: number,
    ): Promise<{ hookId: string; alertKey: string; receivedAt: Date; alert: OwedAlert }[]> {
      const rows = await db
        .select({
          hookId: signalAlerts.hookId,
          alertKey: signalAlerts.alertKey,
          receivedAt: signalAlerts.receivedAt,
          alert: signalAlerts.alert,
        })
        .from(signalAlerts)
        .where(
          and(
            isNull(signalAlerts.orderId),
            sql`${signalAlerts.alert} IS NOT NULL`,
            lt(signalAlerts.receivedAt, before),
          ),
        )
        .orderBy(asc(signalAlerts.receivedAt))
        .limit(limit);
      return rows.map((row) => ({ ...row, alert: row.alert! }));
    },

    takeOver,

    /**
     * The owed alert will not be placed (decision 1160): the claim stays, so a repeat is answered as
     * before, but no longer owes an order. Only the claim this holder holds.
     */
    async giveUp(hookId: string, alertKey: string, claimed: Date): Promise<void> {
      await db
        .update(signalAlerts)
        .set({ alert: null })
        .where(heldBy(hookId, alertKey, claimed));
    },

    /** Deletes up to `limit` claims received before `before`, oldest first; answers how many. */
    async deleteReceivedBefore(before: Date, limit: number): Promise<number> {
      const doomed = db
        .select({ hookId: signalAlerts.hookId, alertKey: signalAlerts.alertKey })
        .from(signalAlerts)
        .where(lt(signalAlerts.receivedAt, before))
        .orderBy(signalAlerts.receivedAt)
        .limit(limit);
      const rows = await db
        .delete(signalAlerts)
        .where(sql`(${signalAlerts.hookId}, ${signalAlerts.alertKey}) IN (${doomed})`)
        .returning({ hookId: signalAlerts.hookId });
      return rows.length;
    },

    async orderOf(hookId: string, alertKey: string): Promise<string | null | undefined> {
      const [row] = await db
        .select({ orderId: signalAlerts.orderId })
        .from(signalAlerts)
        .where(and(eq(signalAlerts.hookId, hookId), eq(signalAlerts.alertKey, alertKey)))
        .limit(1);
      return row ? row.orderId : undefined;
    },
  };
}

export type SignalsRepository = ReturnType<typeof createSignalsRepository>;
