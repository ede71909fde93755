import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import { ragSettings } from './rag-settings.tables.ts';
import { MAX_SOURCES } from './rag-settings.schemas.ts';

export type RagSettingsRow = typeof ragSettings.$inferSelect;
type RagSettingsValues = Pick<
  RagSettingsRow,
  'enabledSources' | 'collectionLimits' | 'collectionIntervalMinutes' | 'autoExpirationDays' | 'maxPostsPerRun'
>;

export interface RagSettingsChange {
  enabledSources?: Record<string, boolean>;
  collectionLimits?: Record<string, number>;
  collectionIntervalMinutes?: number;
  autoExpirationDays?: number;
  maxPostsPerRun?: number;
}

const SCOPE = 'global';

export function createRagSettingsRepository(db: DbExecutor) {
  async function find(executor: DbExecutor = db): Promise<RagSettingsRow | undefined> {
    const [row] = await executor.select().from(ragSettings).where(eq(ragSettings.scope, SCOPE)).limit(1);
    return row;
  }

  return {
    find,

    /** Creates the row with the defaults unless it exists; concurrent callers all see one row. */
    async ensure(defaults: RagSettingsValues, at: Date, executor: DbExecutor = db): Promise<RagSettingsRow> {
      const existing = await find(executor);
      if (existing) return existing;
      await executor
        .insert(ragSettings)
        .values({ scope: SCOPE, ...defaults, version: 1, createdAt: at, updatedAt: at })
        .onConflictDoNothing({ target: ragSettings.scope });
      return (await find(executor))!;
    },

    /**
     * One atomic statement: maps are merged in SQL and the version bumped in the same UPDATE, so two
     * writers holding the same version cannot both succeed. Undefined when `expectedVersion` is stale
     * or a merged map would hold more than MAX_SOURCES names (decision 992).
     */
    async apply(
      change: RagSettingsChange,
      expectedVersion: number | undefined,
      by: string,
      at: Date,
      executor: DbExecutor,
    ): Promise<RagSettingsRow | undefined> {
      const conditions: SQL[] = [eq(ragSettings.scope, SCOPE)];
      if (expectedVersion !== undefined) conditions.push(eq(ragSettings.version, expectedVersion));
      for (const [column, added] of [
        [ragSettings.enabledSources, change.enabledSources],
        [ragSettings.collectionLimits, change.collectionLimits],
      ] as const) {
        if (added) {
          conditions.push(
            sql`(SELECT count(*) FROM jsonb_object_keys(${column} || ${JSON.stringify(added)}::jsonb)) <= ${MAX_SOURCES}`,
          );
        }
      }
      const [row] = await executor
        .update(ragSettings)
        .set({
          ...(change.enabledSources
            ? { enabledSources: sql`${ragSettings.enabledSources} || ${JSON.stringify(change.enabledSources)}::jsonb` }
            : {}),
          ...(change.collectionLimits
            ? {
                collectionLimits: sql`${ragSettings.collectionLimits}
                  || ${JSON.stringify(change.collectionLimits)}::jsonb`,
              }
            : {}),
          ...(change.collectionIntervalMinutes !== undefined
            ? { collectionIntervalMinutes: change.collectionIntervalMinutes }
            : {}),
          ...(change.autoExpirationDays !== undefined ? { autoExpirationDays: change.autoExpirationDays } : {}),
          ...(change.maxPostsPerRun !== undefined ? { maxPostsPerRun: change.maxPostsPerRun } : {}),
          version: sql`${ragSettings.version} + 1`,
          updatedAt: at,
          updatedBy: by,
        })
        .where(and(...conditions))
        .returning();
      return row;
    },
  };
}

export type RagSettingsRepository = ReturnType<typeof createRagSettingsRepository>;
