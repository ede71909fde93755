// Queries on the admin module's user exports: CSV files kept for a day for download.
import { and, eq, gte, lt } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import { adminExports } from './admin.tables.ts';

type ExportRow = typeof adminExports.$inferSelect;

export function createExportsRepository(db: DbExecutor) {
  return {
    async insert(row: typeof adminExports.$inferInsert, executor: DbExecutor = db): Promise<ExportRow> {
      const [inserted] = await executor.insert(adminExports).values(row).returning();
      return inserted!;
    },

    async purgeExpired(now: Date, executor: DbExecutor = db): Promise<void> {
      await executor.delete(adminExports).where(lt(adminExports.expiresAt, now));
    },

    async findLive(id: string, now: Date): Promise<ExportRow | undefined> {
      const [row] = await db
        .select()
        .from(adminExports)
        .where(and(eq(adminExports.id, id), gte(adminExports.expiresAt, now)))
        .limit(1);
      return row;
    },
  };
}

export type ExportsRepository = ReturnType<typeof createExportsRepository>;
