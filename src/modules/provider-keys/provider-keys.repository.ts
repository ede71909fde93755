import { and, asc, eq, gt, lte, sql } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import { providerApiKeys } from './provider-keys.tables.ts';
import { descending } from '../../platform/db/order.ts';

export type KeyRow = typeof providerApiKeys.$inferSelect;
export type NewKey = typeof providerApiKeys.$inferInsert;
export type KeyPatch = Partial<Omit<NewKey, 'id' | 'createdAt' | 'createdBy'>>;

export function createProviderKeysRepository(db: DbExecutor) {
  return {
    async insert(key: NewKey, executor: DbExecutor = db): Promise<KeyRow> {
      const [row] = await executor.insert(providerApiKeys).values(key).returning();
      return row!;
    },

    async find(id: string, executor: DbExecutor = db): Promise<KeyRow | undefined> {
      const [row] = await executor.select().from(providerApiKeys).where(eq(providerApiKeys.id, id)).limit(1);
      return row;
    },

    async findForUpdate(id: string, executor: DbExecutor): Promise<KeyRow | undefined> {
      const [row] = await executor
        .select()
        .from(providerApiKeys)
        .where(eq(providerApiKeys.id, id))
        .for('update')
        .limit(1);
      return row;
    },

    async list(includeInactive: boolean): Promise<KeyRow[]> {
      return db
        .select()
        .from(providerApiKeys)
        .where(includeInactive ? undefined : eq(providerApiKeys.isActive, true))
        .orderBy(asc(providerApiKeys.provider), descending(providerApiKeys.createdAt), descending(providerApiKeys.id));
    },

    async update(id: string, patch: KeyPatch, executor: DbExecutor): Promise<KeyRow> {
      const [row] = await executor.update(providerApiKeys).set(patch).where(eq(providerApiKeys.id, id)).returning();
      return row!;
    },

    async delete(id: string, executor: DbExecutor): Promise<KeyRow | undefined> {
      const [row] = await executor.delete(providerApiKeys).where(eq(providerApiKeys.id, id)).returning();
      return row;
    },

    /** Counts a use; false when the key was deleted meanwhile. */
    async recordUse(id: string, at: Date, executor: DbExecutor): Promise<boolean> {
      const rows = await executor
        .update(providerApiKeys)
        .set({ lastUsedAt: at, usageCount: sql`${providerApiKeys.usageCount} + 1` })
        .where(eq(providerApiKeys.id, id))
        .returning({ id: providerApiKeys.id });
      return rows.length > 0;
    },

    async dueForRotation(cutoff: Date): Promise<KeyRow[]> {
      return db
        .select()
        .from(providerApiKeys)
        .where(and(eq(providerApiKeys.isActive, true), lte(providerApiKeys.nextRotationDate, cutoff)))
        .orderBy(asc(providerApiKeys.nextRotationDate), asc(providerApiKeys.id));
    },

    /** A page of (id, sealed key) in id order, for re-encryption. */
    async sealedPage(afterId: string | null, size: number): Promise<{ id: string; encryptedKey: string }[]> {
      return db
        .select({ id: providerApiKeys.id, encryptedKey: providerApiKeys.encryptedKey })
        .from(providerApiKeys)
        .where(afterId ? gt(providerApiKeys.id, afterId) : undefined)
        .orderBy(asc(providerApiKeys.id))
        .limit(size);
    },

    /** Swaps the sealed value only if nobody replaced it meanwhile (a concurrent PUT wins). */
    async replaceSealed(id: string, expected: string, next: string, executor: DbExecutor): Promise<boolean> {
      const rows = await executor
        .update(providerApiKeys)
        .set({ encryptedKey: next })
        .where(and(eq(providerApiKeys.id, id), eq(providerApiKeys.encryptedKey, expected)))
        .returning({ id: providerApiKeys.id });
      return rows.length > 0;
    },
  };
}

export type ProviderKeysRepository = ReturnType<typeof createProviderKeysRepository>;
