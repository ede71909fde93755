// The only SQL over the paper engine's tables. Every change of a user's paper balances happens in a
// transaction that first locks the user's account row (`lockAccount`), so one user's orders settle
// one after another on any number of instances.
import { Decimal } from 'decimal.js';
import { and, asc, eq, getTableName, inArray, sql } from 'drizzle-orm';
import { dateOrNull, rowsOf, type DbExecutor } from '../../platform/db/database.ts';
import { arrayParam, executeText } from '../../platform/db/prepared.ts';
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

/** One change per asset: an UPDATE … FROM applies only one of several source rows joined to a row. */
function mergedByAsset(changes: readonly BalanceChange[]): BalanceChange[] {
  const byAsset = new Map<string, { free: Decimal; locked: Decimal }>();
  for (const c of changes) {
    const sum = byAsset.get(c.asset) ?? { free: new Decimal(0), locked: new Decimal(0) };
    byAsset.set(c.asset, { free: sum.free.plus(c.free), locked: sum.locked.plus(c.locked) });
  }
  return [...byAsset].map(([asset, sum]) => ({ asset, free: sum.free.toFixed(), locked: sum.locked.toFixed() }));
}

// The statements of every paper market order, their text built once (decision 380).
const [ACCOUNTS, BALANCES, ORDERS, FILLS] = [paperAccounts, paperBalances, paperOrders, paperFills].map(
  (table) => `"${getTableName(table)}"`,
);

/**
 * The user's account row locked, then its balances read by a statement of their own: in READ COMMITTED a
 * statement reads as of its start, so one that waited for the lock behind another order of the user would
 * read the balances as they were before that order committed (decision 970).
 */
const LOCK_ACCOUNT = `SELECT 1 FROM ${ACCOUNTS} WHERE user_id = $1::uuid FOR UPDATE`;
const BALANCES_OF = `SELECT asset, free, locked FROM ${BALANCES} WHERE user_id = $1::uuid`;

/**
 * An account opened with its start balances ($3 the assets, $4 their amounts), or not at all: one statement,
 * so that a failed balance write, or a process stopped between two writes, cannot leave an account that every
 * later call finds opened and never gives balances. Answers the accounts opened: 0 when it existed.
 */
const OPEN_ACCOUNT = `WITH opened AS (
    INSERT INTO ${ACCOUNTS} (user_id, created_at) VALUES ($1::uuid, $2::timestamptz)
    ON CONFLICT (user_id) DO NOTHING
    RETURNING user_id
  ), started AS (
    INSERT INTO ${BALANCES} (user_id, asset, free, locked, updated_at)
    SELECT opened.user_id, v.asset, v.free, 0, $2::timestamptz
    FROM opened, unnest($3::text[], $4::numeric[]) AS v(asset, free)
  )
  SELECT count(*)::int AS opened FROM opened`;

/**
 * Told, on commit, of each order left resting, by any instance (the payload: its venue symbol): the
 * resting watch's wake-up (docs/decisions/640).
 */
export const RESTED_CHANNEL = 'paper_rested';

/**
 * A new order settled (`insertSettled`): the order ($1–$17, at $18), its fills ($19–$24), the balances
 * of assets the account has ($25–$27) and of those it has not ($28–$30). An order left resting notifies
 * RESTED_CHANNEL in the same statement: delivered when the transaction commits, never when it rolls back.
 */
const INSERT_SETTLED = `WITH o AS (
    INSERT INTO ${ORDERS} (id, user_id, client_order_id, exchange, symbol, venue_symbol, base, quote, side,
      type, time_in_force, amount, price, filled, status, maker_fee, reason, created_at, updated_at)
    VALUES ($1::uuid, $2::uuid, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text, $9::text, $10::text,
      $11::text, $12::numeric, $13::numeric, $14::numeric, $15::text, $16::numeric, $17::text, $18::timestamptz,
      $18::timestamptz)
    ON CONFLICT (user_id, client_order_id) DO NOTHING
    RETURNING id, status, filled, reason
  ), f AS (
    INSERT INTO ${FILLS} (trade_id, order_id, price, amount, fee, fee_currency, maker, at)
    SELECT v.trade_id, o.id, v.price, v.amount, v.fee, v.fee_currency, v.maker, $18::timestamptz
    FROM o, unnest($19::text[], $20::numeric[], $21::numeric[], $22::numeric[], $23::text[], $24::boolean[])
      WITH ORDINALITY AS v(trade_id, price, amount, fee, fee_currency, maker, n)
    ORDER BY v.n
    RETURNING trade_id, price, amount, fee, fee_currency, maker, at, seq
  ), moved AS (
    UPDATE ${BALANCES} AS b
    SET free = b.free + v.free, locked = b.locked + v.locked, updated_at = $18::timestamptz
    FROM unnest($25::text[], $26::numeric[], $27::numeric[]) AS v(asset, free, locked)
    WHERE b.user_id = $2::uuid AND b.asset = v.asset AND EXISTS (SELECT 1 FROM o)
  ), added AS (
    INSERT INTO ${BALANCES} (user_id, asset, free, locked, updated_at)
    SELECT $2::uuid, v.asset, v.free, v.locked, $18::timestamptz
    FROM unnest($28::text[], $29::numeric[], $30::numeric[]) AS v(asset, free, locked)
    WHERE EXISTS (SELECT 1 FROM o)
  ), rested AS (
    SELECT pg_notify('${RESTED_CHANNEL}', $6::text) AS notified FROM o
    WHERE o.status IN (${RESTING_STATUSES.map((s) => `'${s}'`).join(', ')})
  )
  SELECT o.id, o.status, o.filled, o.reason, f.trade_id, f.price, f.amount, f.fee, f.fee_currency, f.maker,
    f.at, f.seq
  FROM o LEFT JOIN f ON true LEFT JOIN rested ON true
  ORDER BY f.seq`;

export function createPaperRepository(db: DbExecutor) {
  return {
    /** Opens the account with `start` unless it exists, both in one statement; true when it was opened now. */
    async ensureAccount(
      userId: string,
      start: Readonly<Record<string, string>>,
      now: Date,
      executor: DbExecutor = db,
    ): Promise<boolean> {
      const assets = Object.entries(start);
      const [row] = rowsOf<{ opened: number }>(
        await executeText(executor, 'paper_open_account', OPEN_ACCOUNT, [
          userId,
          now,
          arrayParam(assets.map(([asset]) => asset)),
          arrayParam(assets.map(([, free]) => free)),
        ]),
      );
      return Number(row?.opened) > 0;
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
     * Locks the user's account row, then reads its balances (two named statements: their plans are the
     * same for any user); undefined when the account is not opened yet (nothing locked).
     */
    async lockedBalances(
      userId: string,
      executor: DbExecutor,
    ): Promise<{ asset: string; free: string; locked: string }[] | undefined> {
      const locked = rowsOf(await executeText(executor, 'paper_lock_account', LOCK_ACCOUNT, [userId]));
      if (locked.length === 0) return undefined;
      return rowsOf<{ asset: string; free: string; locked: string }>(
        await executeText(executor, 'paper_balances_of', BALANCES_OF, [userId]),
      ).map((r) => ({ asset: r.asset, free: String(r.free), locked: String(r.locked) }));
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
      const merged = mergedByAsset(changes);
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

    /**
     * A new order settled: the order, its fills and the balances it moves (`existing` assets updated,
     * the others' rows made), written in one statement, named (its text is the same for any order: the
     * fills and changes go as arrays). The user's account is locked by the caller's transaction, and
     * `existing` are the assets its balances read found. Nothing is written when the user already has
     * an order with this client order id: undefined then.
     */
    async insertSettled(
      row: NewPaperOrder & { id: string; createdAt: Date },
      fills: readonly (typeof paperFills.$inferInsert)[],
      changes: readonly BalanceChange[],
      existing: ReadonlySet<string>,
      executor: DbExecutor,
    ): Promise<
      { order: Pick<PaperOrderRow, 'id' | 'status' | 'filled' | 'reason'>; fills: PaperFillRow[] } | undefined
    > {
      const merged = mergedByAsset(changes);
      const moved = merged.filter((c) => existing.has(c.asset));
      const added = merged.filter((c) => !existing.has(c.asset));
      const column = <K extends keyof BalanceChange>(list: BalanceChange[], key: K) =>
        arrayParam(list.map((c) => c[key]));
      const now = row.createdAt;
      const rows = rowsOf<{
        id: string;
        status: PaperOrderRow['status'];
        filled: string;
        reason: string | null;
        trade_id: string | null;
        price: string;
        amount: string;
        fee: string;
        fee_currency: string;
        maker: boolean;
        at: Date | string;
        seq: number | string;
      }>(
        await executeText(executor, 'paper_insert_settled', INSERT_SETTLED, [
          row.id,
          row.userId,
          row.clientOrderId,
          row.exchange,
          row.symbol,
          row.venueSymbol,
          row.base,
          row.quote,
          row.side,
          row.type,
          row.timeInForce,
          row.amount,
          row.price ?? null,
          row.filled,
          row.status,
          row.makerFee,
          row.reason ?? null,
          now,
          arrayParam(fills.map((f) => f.tradeId)),
          arrayParam(fills.map((f) => f.price)),
          arrayParam(fills.map((f) => f.amount)),
          arrayParam(fills.map((f) => f.fee)),
          arrayParam(fills.map((f) => f.feeCurrency)),
          arrayParam(fills.map((f) => f.maker)),
          column(moved, 'asset'),
          column(moved, 'free'),
          column(moved, 'locked'),
          column(added, 'asset'),
          column(added, 'free'),
          column(added, 'locked'),
        ]),
      );
      const first = rows[0];
      if (!first) return undefined;
      return {
        order: { id: first.id, status: first.status, filled: String(first.filled), reason: first.reason },
        fills: rows.flatMap((r) =>
          r.trade_id === null
            ? []
            : [
                {
                  tradeId: r.trade_id,
                  orderId: first.id,
                  price: String(r.price),
                  amount: String(r.amount),
                  fee: String(r.fee),
                  feeCurrency: r.fee_currency,
                  maker: r.maker,
                  at: dateOrNull(r.at)!,
                  seq: Number(r.seq),
                },
              ],
        ),
      };
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
