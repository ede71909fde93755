// The single stored row of platform limits.
import { eq } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import { platformLimits } from './admin.tables.ts';
import { LIMIT_DEFAULTS, type LimitName } from './platform-limits.schemas.ts';

export type LimitValues = Record<LimitName, number>;

const SINGLE_ROW = 1;

export function createPlatformLimitsRepository(db: DbExecutor) {
  return {
    /** The stored values, or the defaults while no admin has changed any. */
    async read(executor: DbExecutor = db): Promise<LimitValues> {
      const [row] = await executor.select().from(platformLimits).where(eq(platformLimits.id, SINGLE_ROW)).limit(1);
      return row ? fromRow(row) : { ...LIMIT_DEFAULTS };
    },

    /**
     * Creates the row from the defaults if absent, then locks it: concurrent changes of different
     * limits apply one after the other instead of the later overwriting the earlier.
     */
    async readForUpdate(executor: DbExecutor): Promise<LimitValues> {
      await executor
        .insert(platformLimits)
        .values({
          id: SINGLE_ROW,
          backtestPerHour: LIMIT_DEFAULTS.backtest_per_hour,
          optimizePerHour: LIMIT_DEFAULTS.optimize_per_hour,
          paperTransitionPerHour: LIMIT_DEFAULTS.paper_transition_per_hour,
        })
        .onConflictDoNothing();
      const [row] = await executor.select().from(platformLimits).where(eq(platformLimits.id, SINGLE_ROW)).for('update');
      return fromRow(row!);
    },

    async write(values: LimitValues, at: Date, by: string | null, executor: DbExecutor): Promise<void> {
      await executor
        .update(platformLimits)
        .set({
          backtestPerHour: values.backtest_per_hour,
          optimizePerHour: values.optimize_per_hour,
          paperTransitionPerHour: values.paper_transition_per_hour,
          updatedAt: at,
          updatedBy: by,
        })
        .where(eq(platformLimits.id, SINGLE_ROW));
    },
  };
}

function fromRow(row: typeof platformLimits.$inferSelect): LimitValues {
  return {
    backtest_per_hour: row.backtestPerHour,
    optimize_per_hour: row.optimizePerHour,
    paper_transition_per_hour: row.paperTransitionPerHour,
  };
}

export type PlatformLimitsRepository = ReturnType<typeof createPlatformLimitsRepository>;
