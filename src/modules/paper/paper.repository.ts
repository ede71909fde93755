// The only SQL over the paper engine's tables. Every change of a user's paper balances happens in a
// transaction that first locks the user's account row (`lockAccount`), so one user's orders settle
// one after another on any number of instances.
import { Decimal } from 'decimal.js';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { rowsOf, type DbExecutor } from '../../platform/db/database.ts';
import { executePrepared } from '../../platform/db/prepared.ts';
import type { VenueOrderStatus } from '../../platform/order-venue.ts';
import { RESTING_STATUSES } from './paper.domain.ts';
import { paperAccounts, paperBalances, paperFills, paperOrders } from './paper.tables.ts';

export type BalanceRow = typeof paperBalances.$inferSelect;
export type PaperOrderRow = typeof paperOrders.$inferSelect;
type NewPaperOrder = typeof paperOrders.$inferInsert;
export type PaperFillRow = typeof paperFills.$inferSelect;

/** Decimal strings: what a balance moves by. */
export interface BalanceChange {
  asset: string;
  free: string;
  locked: string;
}

// Constants, not parameters: the planner uses the partial index only for a predicate it can prove.
const resting = sql`${paperOrders.status} IN (${sql.raw(RESTING_STATUSES.map((s) => `'${s}'`).join(', '))})`;

export function createPaperRepository(db: DbExecutor) {
  return {
    /** Opens the account with `start` unless it exists; true when it was opened now. */
    async ensureAccount(
      userId: string,
      start: Readonly<Record<string, string>>,
      now: Date,
      executor: DbExecutor = db,
    ): Promise<boolean> {
      const opened = await executor
        .insert(paperAccounts)
        .values({ userId, createdAt: now })
        .onConflictDoNothing()
        .returning({ userId: paperAccounts.userId });
      if (opened.length === 0) return false;
      const rows = Object.entries(start).map(([asset, free]) => ({ userId, asset, free, locked: '0', updatedAt: now }));
      if (rows.length > 0) await executor.insert(paperBalances).values(rows);
      return true;
    },

    /** Locks the user's account row; false when the account is not opened yet (nothing locked). */
    async lockAccount(userId: string, executor: DbExecutor): Promise<boolean> {
      const rows = await executor
        .select({ userId: paperAccounts.userId })
        .from(paperAccounts)
        .where(eq(paperAccounts.userId, userId))
        .for('update');
      return rows.length > 0;
    },

    /**
     * Locks the user's account row and reads its balances, in one statement (named: its plan is the
     * same for any user); undefined when the account is not opened yet (nothing locked).
     */
    async lockedBalances(userId: string, executor: DbExecutor): Promise<{ asset: string; free: string }[] | undefined> {
      const rows = rowsOf<{ asset: string | null; free: string | null }>(
        await executePrepared(
          executor,
          'paper_locked_balances',
          sql`SELECT b.asset, b.free FROM ${paperAccounts} AS a
            LEFT JOIN ${paperBalances} AS b ON b.user_id = a.user_id
            WHERE a.user_id = ${userId}::uuid
            FOR UPDATE OF a`,
        ),
      );
      if (rows.length === 0) return undefined;
      return rows.flatMap((r) => (r.asset === null ? [] : [{ asset: r.asset, free: String(r.free) }]));
    },

    async balances(userId: string, executor: DbExecutor = db): Promise<BalanceRow[]> {
      return executor
        .select()
        .from(paperBalances)
        .where(eq(paperBalances.userId, userId))
        .orderBy(asc(paperBalances.asset));
    },

    /**
     * Adds each change to the asset's row (made when missing); the CHECKs refuse a negative result. One
     * statement for every asset that has a row (a paper order holds the account lock meanwhile).
     */
    async applyChanges(userId: string, changes: readonly BalanceChange[], now: Date, executor: DbExecutor) {
      if (changes.length === 0) return;
      // One row per asset: an UPDATE … FROM applies only one of several source rows joined to a row.
      const byAsset = new Map<string, { free: Decimal; locked: Decimal }>();
      for (const c of changes) {
        const sum = byAsset.get(c.asset) ?? { free: new Decimal(0), locked: new Decimal(0) };
        byAsset.set(c.asset, { free: sum.free.plus(c.free), locked: sum.locked.plus(c.locked) });
      }
      const merged = [...byAsset].map(([asset, sum]) => ({
        asset,
        free: sum.free.toFixed(),
        locked: sum.locked.toFixed(),
      }));
      const values = sql.join(
        merged.map((c) => sql`(${c.asset}::text, ${c.free}::numeric, ${c.locked}::numeric)`),
        sql`, `,
      );
      const updated = rowsOf<{ asset: string }>(
        await executor.execute(sql`
          UPDATE ${paperBalances} AS b
          SET free = b.free + v.free, locked = b.locked + v.locked, updated_at = ${now}::timestamptz
          FROM (VALUES ${values}) AS v(asset, free, locked)
          WHERE b.user_id = ${userId}::uuid AND b.asset = v.asset
          RETURNING b.asset`),
      );
      const found = new Set(updated.map((row) => row.asset));
      const missing = merged.filter((c) => !found.has(c.asset));
      if (missing.length > 0)
        await executor
          .insert(paperBalances)
          .values(missing.map((c) => ({ userId, asset: c.asset, free: c.free, locked: c.locked, updatedAt: now })));
    },

    async replaceBalances(
      userId: string,
      balances: Readonly<Record<string, string>>,
      now: Date,
      executor: DbExecutor,
    ): Promise<void> {
      await executor.delete(paperBalances).where(eq(paperBalances.userId, userId));
      const rows = Object.entries(balances).map(([asset, free]) => ({
        userId,
        asset,
        free,
        locked: '0',
        updatedAt: now,
      }));
      if (rows.length > 0) await executor.insert(paperBalances).values(rows);
      await executor.update(paperAccounts).set({ resetAt: now }).where(eq(paperAccounts.userId, userId));
    },

    /** The new order; undefined when the user already has one with its client order id. */
    async insertOrder(row: NewPaperOrder, executor: DbExecutor): Promise<PaperOrderRow | undefined> {
      const [created] = await executor
        .insert(paperOrders)
        .values(row)
        .onConflictDoNothing({ target: [paperOrders.userId, paperOrders.clientOrderId] })
        .returning();
      return created;
    },

    async findOrder(userId: string, clientOrderId: string, executor: DbExecutor = db) {
      const [row] = await executor
        .select()
        .from(paperOrders)
        .where(and(eq(paperOrders.userId, userId), eq(paperOrders.clientOrderId, clientOrderId)))
        .limit(1);
      return row;
    },

    /**
     * Moves a resting order to its next state only if it still rests with `filled` as read: the
     * conditional update that lets exactly one instance fill (or cancel) it. False when it moved meanwhile.
     */
    async moveResting(
      id: string,
      seenFilled: string,
      change: { status: VenueOrderStatus; filled: string; reason?: string | null; at: Date },
      executor: DbExecutor,
    ): Promise<boolean> {
      const moved = await executor
        .update(paperOrders)
        .set({ status: change.status, filled: change.filled, reason: change.reason ?? null, updatedAt: change.at })
        .where(and(eq(paperOrders.id, id), resting, sql`${paperOrders.filled} = ${seenFilled}::numeric`))
        .returning({ id: paperOrders.id });
      return moved.length > 0;
    },

    async insertFills(rows: (typeof paperFills.$inferInsert)[], executor: DbExecutor): Promise<PaperFillRow[]> {
      if (rows.length === 0) return [];
      const inserted = await executor.insert(paperFills).values(rows).returning();
      return inserted.sort((a, b) => a.seq - b.seq);
    },

    async fillsOf(orderId: string, executor: DbExecutor = db): Promise<PaperFillRow[]> {
      return executor.select().from(paperFills).where(eq(paperFills.orderId, orderId)).orderBy(asc(paperFills.seq));
    },

    /** The venue symbols with resting orders (the partial index holds only those). */
    async restingSymbols(): Promise<string[]> {
      const rows = await db.selectDistinct({ symbol: paperOrders.venueSymbol }).from(paperOrders).where(resting);
      return rows.map((r) => r.symbol);
    },

    async restingOn(venueSymbols: readonly string[]): Promise<PaperOrderRow[]> {
      if (venueSymbols.length === 0) return [];
      return db
        .select()
        .from(paperOrders)
        .where(and(resting, inArray(paperOrders.venueSymbol, [...venueSymbols])))
        .orderBy(asc(paperOrders.createdAt), asc(paperOrders.id));
    },

    async restingOf(userId: string, executor: DbExecutor): Promise<PaperOrderRow[]> {
      return executor
        .select()
        .from(paperOrders)
        .where(and(eq(paperOrders.userId, userId), resting));
    },
  };
}

export type PaperRepository = ReturnType<typeof createPaperRepository>;
