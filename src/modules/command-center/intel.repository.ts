import { and, asc, count, isNull, ne, sql, type SQL } from 'drizzle-orm';
import { rowsOf, type DbExecutor } from '../../platform/db/database.ts';
import { marketIntelCounts, marketIntelEvents } from './command-center.tables.ts';
import { DEFAULT_HORIZON_MS, SCORING_GIVE_UP_AFTER, type OutcomeGroup } from './intel-scoring.domain.ts';
import { descending } from '../../platform/db/order.ts';

/** The kept counts' outcome names, as signs of the outcome. */
const OUTCOME_SIGNS: Record<string, number | null> = { gain: 1, loss: -1, flat: 0, unscored: null };

export type IntelRow = typeof marketIntelEvents.$inferSelect;
type NewIntel = typeof marketIntelEvents.$inferInsert;

interface IntelFilters {
  includeQuarantined: boolean;
  /** When set, only events whose horizon lies after this instant. */
  activeAt?: Date;
}

// expires_at, or detection plus the default horizon (DEFAULT_HORIZON_MS): the database's function,
// which the scoring queue's index is ordered by (command-center.routines.sql).
const horizon = sql`intel_horizon(${marketIntelEvents.expiresAt}, ${marketIntelEvents.detectedAt})`;

/**
 * `horizon > at`, spelt so that each half has an index: an explicit horizon by the expiry index, the
 * default one by the detection index (only events detected within the default horizon). Counting the
 * active feed so reads the active events, not the feed.
 */
function activeAt(at: Date): SQL {
  const since = new Date(at.getTime() - DEFAULT_HORIZON_MS).toISOString();
  return sql`(${marketIntelEvents.expiresAt} > ${at.toISOString()}::timestamptz
    OR (${marketIntelEvents.expiresAt} IS NULL AND ${marketIntelEvents.detectedAt} > ${since}::timestamptz))`;
}

function where(filters: IntelFilters): SQL | undefined {
  const conditions: SQL[] = [];
  if (!filters.includeQuarantined) conditions.push(ne(marketIntelEvents.trustTier, 'quarantined'));
  if (filters.activeAt) conditions.push(activeAt(filters.activeAt));
  return conditions.length > 0 ? and(...conditions) : undefined;
}

export function createIntelRepository(db: DbExecutor) {
  return {
    async insert(event: NewIntel, executor: DbExecutor = db): Promise<IntelRow> {
      const [row] = await executor.insert(marketIntelEvents).values(event).returning();
      return row!;
    },

    async list(filters: IntelFilters, limit: number): Promise<IntelRow[]> {
      return db
        .select()
        .from(marketIntelEvents)
        .where(where(filters))
        .orderBy(descending(marketIntelEvents.detectedAt), descending(marketIntelEvents.id))
        .limit(limit);
    },

    /**
     * Counts per (source, direction, sign of outcome); a handful of rows however long the feed. The
     * whole feed's come from the counts the database keeps (docs/decisions/124); the active feed's
     * are counted from its events, found by index (activeAt).
     */
    async outcomeGroups(filters: IntelFilters): Promise<OutcomeGroup[]> {
      if (!filters.activeAt) {
        const rows = await db
          .select({
            source: marketIntelCounts.source,
            direction: marketIntelCounts.direction,
            outcome: marketIntelCounts.outcome,
            n: sql<number>`sum(${marketIntelCounts.n})`,
          })
          .from(marketIntelCounts)
          .where(filters.includeQuarantined ? undefined : ne(marketIntelCounts.trustTier, 'quarantined'))
          .groupBy(marketIntelCounts.source, marketIntelCounts.direction, marketIntelCounts.outcome);
        return rows.map((r) => ({
          source: r.source,
          direction: r.direction,
          outcomeSign: OUTCOME_SIGNS[r.outcome] ?? null,
          count: Number(r.n),
        }));
      }
      const outcomeSign = sql<number | null>`sign(${marketIntelEvents.outcomePct})`;
      const rows = await db
        .select({ source: marketIntelEvents.source, direction: marketIntelEvents.direction, outcomeSign, n: count() })
        .from(marketIntelEvents)
        .where(where(filters))
        .groupBy(marketIntelEvents.source, marketIntelEvents.direction, outcomeSign);
      return rows.map((r) => ({
        source: r.source,
        direction: r.direction,
        outcomeSign: r.outcomeSign === null ? null : Number(r.outcomeSign),
        count: Number(r.n),
      }));
    },

    /**
     * Matured events without an outcome that are not given up: never-tried first, then the ones
     * tried longest ago, each by oldest horizon; so events that cannot be scored never hold back
     * newer ones, however many pile up. Read from the queue's own index in its order, the first
     * matured ones and no more (the query, not yet run, so that a test can read its plan).
     */
    maturedUnscored(now: Date, limit: number) {
      return db
        .select({
          id: marketIntelEvents.id,
          symbol: marketIntelEvents.symbol,
          direction: marketIntelEvents.direction,
          detectedAt: marketIntelEvents.detectedAt,
          expiresAt: marketIntelEvents.expiresAt,
        })
        .from(marketIntelEvents)
        .where(
          and(
            isNull(marketIntelEvents.outcomePct),
            // A literal, as the queue index's predicate has it: a parameter would not be proven to match it.
            sql`${marketIntelEvents.scoringAttempts} < ${sql.raw(String(SCORING_GIVE_UP_AFTER))}`,
            sql`${horizon} <= ${now.toISOString()}::timestamptz`,
          ),
        )
        .orderBy(sql`${marketIntelEvents.scoringAttemptedAt} ASC NULLS FIRST`, asc(horizon), asc(marketIntelEvents.id))
        .limit(limit);
    },

    /**
     * Failed scoring attempts, in one statement; `unscorable` ones count towards giving up. An event
     * scored or gone in the meantime is left alone.
     */
    async recordScoringFailures(
      failures: readonly { id: string; unscorable: boolean; reason: string }[],
      at: Date,
    ): Promise<void> {
      if (failures.length === 0) return;
      await db.execute(sql`
        UPDATE ${marketIntelEvents} AS e
        SET scoring_attempted_at = ${at}::timestamptz, scoring_error = f.reason,
          scoring_attempts = e.scoring_attempts + CASE WHEN f.unscorable THEN 1 ELSE 0 END
        FROM jsonb_to_recordset(${JSON.stringify(failures)}::jsonb) AS f(id uuid, unscorable boolean, reason text)
        WHERE e.id = f.id AND e.outcome_pct IS NULL`);
    },

    /**
     * Gives events their outcomes, in one statement. `recorded` is the statement that records them,
     * run within this one over the scored rows (`id`, `outcome_pct`). Answers how many were stored: an
     * unknown id is not.
     */
    async recordOutcomes(
      outcomes: readonly { id: string; outcomePct: number }[],
      at: Date,
      recorded: (scored: SQL) => SQL,
    ): Promise<number> {
      if (outcomes.length === 0) return 0;
      const input = JSON.stringify(outcomes.map((o) => ({ id: o.id, outcome_pct: o.outcomePct })));
      const [row] = rowsOf<{ n: number }>(
        await db.execute(sql`
          WITH scored AS (
            UPDATE ${marketIntelEvents} AS e
            SET outcome_pct = o.outcome_pct, scored_at = ${at}::timestamptz, scoring_error = NULL
            FROM jsonb_to_recordset(${input}::jsonb) AS o(id uuid, outcome_pct double precision)
            WHERE e.id = o.id
            RETURNING e.id, e.outcome_pct
          ), recorded AS (${recorded(sql`scored`)})
          SELECT count(*)::int AS n FROM scored`),
      );
      return Number(row?.n ?? 0);
    },
  };
}

export type IntelRepository = ReturnType<typeof createIntelRepository>;
