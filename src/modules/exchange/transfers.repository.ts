// Deposits and withdrawals synced from venues, and each credential's sync cursor per type.
import { and, eq, gte, lte, sql, type SQL } from 'drizzle-orm';
import { rowOffset, type DbExecutor } from '../../platform/db/database.ts';
import { descending } from '../../platform/db/order.ts';
import { exchangeTransferCursors, exchangeTransfers, type TransferType } from './exchange.tables.ts';

export type TransferRow = typeof exchangeTransfers.$inferSelect;
export type NewTransfer = typeof exchangeTransfers.$inferInsert;

interface TransferFilter {
  userId: string;
  exchange?: string;
  type?: TransferType;
  start?: Date;
  end?: Date;
}

function where(filter: TransferFilter): SQL | undefined {
  const conditions: SQL[] = [eq(exchangeTransfers.userId, filter.userId)];
  if (filter.exchange) conditions.push(eq(exchangeTransfers.exchange, filter.exchange));
  if (filter.type) conditions.push(eq(exchangeTransfers.type, filter.type));
  if (filter.start) conditions.push(gte(exchangeTransfers.transferTimestamp, filter.start));
  if (filter.end) conditions.push(lte(exchangeTransfers.transferTimestamp, filter.end));
  return and(...conditions);
}

export function createTransfersRepository(db: DbExecutor) {
  return {
    /** Stores new records and updates the status of known ones; answers how many were new. */
    async upsert(rows: NewTransfer[]): Promise<number> {
      if (rows.length === 0) return 0;
      const stored = await db
        .insert(exchangeTransfers)
        .values(rows)
        .onConflictDoUpdate({
          target: [
            exchangeTransfers.userId,
            exchangeTransfers.exchange,
            exchangeTransfers.type,
            exchangeTransfers.exchangeTransferId,
          ],
          set: { status: sql`excluded.status` },
        })
        // xmax = 0 only on a row this statement inserted.
        .returning({ inserted: sql<boolean>`(xmax = 0)` });
      return stored.filter((r) => r.inserted).length;
    },

    async list(
      filter: TransferFilter,
      page: { limit: number; offset: number },
    ): Promise<{ rows: TransferRow[]; total: number }> {
      const condition = where(filter);
      const [rows, [count]] = await Promise.all([
        db
          .select()
          .from(exchangeTransfers)
          .where(condition)
          .orderBy(descending(exchangeTransfers.transferTimestamp), descending(exchangeTransfers.id))
          .limit(page.limit)
          .offset(rowOffset(page.offset)),
        db.select({ n: sql<number>`count(*)::int` }).from(exchangeTransfers).where(condition),
      ]);
      return { rows, total: Number(count?.n ?? 0) };
    },

    /** A user's completed transfers on every venue, oldest first, for the portfolio. */
    async completed(userId: string): Promise<TransferRow[]> {
      return db
        .select()
        .from(exchangeTransfers)
        .where(and(eq(exchangeTransfers.userId, userId), eq(exchangeTransfers.status, 'ok')))
        .orderBy(exchangeTransfers.transferTimestamp, exchangeTransfers.id);
    },

    async completedCount(userId: string): Promise<number> {
      const [row] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(exchangeTransfers)
        .where(and(eq(exchangeTransfers.userId, userId), eq(exchangeTransfers.status, 'ok')));
      return Number(row?.n ?? 0);
    },

    async cursor(credentialId: string, type: TransferType): Promise<Date | null> {
      const [row] = await db
        .select({ at: exchangeTransferCursors.syncedUntil })
        .from(exchangeTransferCursors)
        .where(and(eq(exchangeTransferCursors.credentialId, credentialId), eq(exchangeTransferCursors.type, type)));
      return row?.at ?? null;
    },

    async saveCursor(credentialId: string, type: TransferType, at: Date): Promise<void> {
      await db
        .insert(exchangeTransferCursors)
        .values({ credentialId, type, syncedUntil: at })
        .onConflictDoUpdate({
          target: [exchangeTransferCursors.credentialId, exchangeTransferCursors.type],
          set: { syncedUntil: at },
        });
    },
  };
}

export type TransfersRepository = ReturnType<typeof createTransfersRepository>;
