import { and, asc, isNull, ne, sql, type SQL } from 'drizzle-orm';
import { rowsOf, type DbExecutor } from '../../platform/db/database.ts';
import { marketIntelCounts, marketIntelEvents } from './command-center.tables.ts';
import { DEFAULT_HORIZON_MS, SCORING_GIVE_UP_AFTER, type OutcomeGroup } from './intel-scoring.domain.ts';
import { descending } from '../../platform/db/order.ts';
import { executePrepared } from '../../platform/db/prepared.ts';

/** The kept counts' outcome names (`gain`, `loss`, `flat`, `unscored`), as signs of the outcome. */
const outcomeSign = sql`CASE ${marketIntelCounts.outcome} WHEN 'gain' THEN 1 WHEN 'loss' THEN -1 WHEN 'flat' THEN 0 END`;

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

    /**
     * A page of the feed, newest first, as the JSON text of the wire's event array, with the outcome
     * groups of the whole filtered feed: one statement. The page is its rows' kept texts joined
     * (decision 190); a row written with triggers off is formatted here by the same function. The
     * groups are counts per (source, direction, sign of outcome), a handful of rows however long the
     * feed: the whole feed's from the counts the database keeps (decision 124), the active feed's
     * counted from its events, found by index (activeAt).
     */
    async feedPage(filters: IntelFilters, limit: number): Promise<{ events: string; groups: OutcomeGroup[] }> {
      const page = db
        .select()
        .from(marketIntelEvents)
        .where(where(filters))
        .orderBy(descending(marketIntelEvents.detectedAt), descending(marketIntelEvents.id))
        .limit(limit)
        .as('page');
      const groups = filters.activeAt
        ? sql`SELECT ${marketIntelEvents.source} AS source, ${marketIntelEvents.direction} AS direction,
            sign(${marketIntelEvents.outcomePct})::int AS "outcomeSign", count(*)::int AS count
          FROM ${marketIntelEvents} WHERE ${where(filters)}
          GROUP BY ${marketIntelEvents.source}, ${marketIntelEvents.direction}, sign(${marketIntelEvents.outcomePct})`
        : sql`SELECT ${marketIntelCounts.source} AS source, ${marketIntelCounts.direction} AS direction,
            ${outcomeSign} AS "outcomeSign", sum(${marketIntelCounts.n})::int AS count
          FROM ${marketIntelCounts}
          ${filters.includeQuarantined ? sql`` : sql`WHERE ${ne(marketIntelCounts.trustTier, 'quarantined')}`}
          GROUP BY ${marketIntelCounts.source}, ${marketIntelCounts.direction}, ${outcomeSign}`;
      const [row] = rowsOf<{ events: string; groups: OutcomeGroup[] }>(
        await executePrepared(
          db,
          'intel_feed_page',
          sql`
          SELECT
            (SELECT coalesce(
                '[' || string_agg(
                  coalesce(${page.wire}, market_intel_wire(${page.id}, ${page.eventType}, ${page.asset},
                    ${page.symbol}, ${page.direction}, ${page.source}, ${page.trustTier}, ${page.rawNote},
                    ${page.strength}, ${page.evidence}, ${page.detectedAt}, ${page.expiresAt}, ${page.createdAt},
                    ${page.outcomePct}, ${page.scoringError}, ${page.scoringAttempts})),
                  ',' ORDER BY ${page.detectedAt} DESC, ${page.id} DESC
                ) || ']',
                '[]'
              ) FROM ${page}) AS events,
            (SELECT coalesce(json_agg(g), '[]') FROM (${groups}) AS g) AS groups`,
        ),
      );
      return { events: row!.events, groups: row!.groups };
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
