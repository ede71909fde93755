// Every query of the trading module: users' limits, users' halts and the platform's row.
import { and, eq, getTableName, isNotNull, lte, or } from 'drizzle-orm';
import { dateOrNull, rowsOf, type DbExecutor } from '../../platform/db/database.ts';
import { executeText } from '../../platform/db/prepared.ts';
import type { HaltCause, PlatformHalt, UserHalt } from './halts.domain.ts';
import { LIMIT_KEYS, type DailyLossLimits, type Limits, type LimitsPatch } from './limits.domain.ts';
import { tradingHalts, tradingLimits, tradingPlatform } from './trading.tables.ts';

type PlatformRow = typeof tradingPlatform.$inferSelect;

const limitsOf = (row: Limits): Limits => ({
  maxOrderNotional: row.maxOrderNotional,
  maxOpenOrders: row.maxOpenOrders,
  maxOrdersPerMinute: row.maxOrdersPerMinute,
  priceBandPercent: row.priceBandPercent,
  dailyLossLimit: row.dailyLossLimit,
});

/** Only the fields given, so that an upsert changes those and keeps the others. */
const given = (patch: LimitsPatch): LimitsPatch =>
  Object.fromEntries(LIMIT_KEYS.filter((key) => patch[key] !== undefined).map((key) => [key, patch[key]]));

const platformHaltOf = (row: PlatformRow | undefined): PlatformHalt | undefined =>
  row?.halted ? { reason: row.haltReason ?? '', haltedAt: row.haltedAt ?? row.updatedAt } : undefined;

/** What an order is admitted on: the user's halt, the platform's halt, the user's own limits and the caps. */
export interface Gate {
  userHalt: UserHalt | undefined;
  platformHalt: PlatformHalt | undefined;
  own: Limits | undefined;
  caps: Limits | undefined;
}

interface GateRow {
  cause: HaltCause | null;
  reason: string | null;
  halted_at: Date | string | null;
  until: Date | string | null;
  p_id: number | null;
  p_halted: boolean | null;
  p_reason: string | null;
  p_halted_at: Date | string | null;
  p_updated_at: Date | string | null;
  p_notional: string | null;
  p_open: number | null;
  p_per_minute: number | null;
  p_band: string | null;
  p_loss: string | null;
  own_id: string | null;
  notional: string | null;
  open: number | null;
  per_minute: string | number | null;
  band: string | null;
  loss: string | null;
}

const count = (value: string | number | null): number | null => (value === null ? null : Number(value));

function gateOf(row: GateRow): Gate {
  const platform: PlatformRow | undefined =
    row.p_id === null
      ? undefined
      : {
          id: row.p_id,
          maxOrderNotional: row.p_notional,
          maxOpenOrders: count(row.p_open),
          maxOrdersPerMinute: count(row.p_per_minute),
          priceBandPercent: row.p_band,
          dailyLossLimit: row.p_loss,
          halted: row.p_halted ?? false,
          haltReason: row.p_reason,
          haltedAt: dateOrNull(row.p_halted_at),
          updatedAt: dateOrNull(row.p_updated_at)!,
        };
  return {
    userHalt:
      row.cause === null
        ? undefined
        : { cause: row.cause, reason: row.reason!, haltedAt: dateOrNull(row.halted_at)!, until: dateOrNull(row.until) },
    platformHalt: platformHaltOf(platform),
    own:
      row.own_id === null
        ? undefined
        : {
            maxOrderNotional: row.notional,
            maxOpenOrders: count(row.open),
            maxOrdersPerMinute: count(row.per_minute),
            priceBandPercent: row.band,
            dailyLossLimit: row.loss,
          },
    caps: platform && limitsOf(platform),
  };
}

/** The gate's columns and tables: the user's halt, the platform's row, the user's own limits. */
const GATE_COLUMNS = `h.cause, h.reason, h.halted_at, h.until,
    p.id AS p_id, p.halted AS p_halted, p.halt_reason AS p_reason, p.halted_at AS p_halted_at,
    p.updated_at AS p_updated_at, p.max_order_notional AS p_notional, p.max_open_orders AS p_open,
    p.max_orders_per_minute AS p_per_minute, p.price_band_percent AS p_band,
    p.daily_loss_limit AS p_loss,
    l.user_id AS own_id, l.max_order_notional AS notional, l.max_open_orders AS open,
    l.max_orders_per_minute AS per_minute, l.price_band_percent AS band,
    l.daily_loss_limit AS loss`;
const GATE_FROM = `FROM (SELECT $1::uuid AS user_id) AS u
  LEFT JOIN "${getTableName(tradingHalts)}" AS h ON h.user_id = u.user_id
  LEFT JOIN "${getTableName(tradingPlatform)}" AS p ON p.id = 1
  LEFT JOIN "${getTableName(tradingLimits)}" AS l ON l.user_id = u.user_id`;

/** The gate's statement, its text built once (decision 380): an order runs it before anything else. */
const GATE = `SELECT ${GATE_COLUMNS}
  ${GATE_FROM}`;

/**
 * What another module's read adds to the gate's statement, so that both travel as one (decisions 501, 650): a
 * join (`u.user_id` is the user's id; its parameters numbered from `$2`, after those of any join before it)
 * and the columns it selects, named so as not to meet the gate's own. Its text is a constant of that module:
 * the statement is named by its text.
 */
export interface GateJoin {
  join: string;
  columns: string;
  params: unknown[];
}

/** The gate's texts with joins, built once per joins and columns (keyed by the texts themselves, never joined). */
interface GateText {
  next: Map<string, GateText>;
  text?: string;
}
const gateTexts: GateText = { next: new Map() };
function stepOf(node: GateText, part: string): GateText {
  let next = node.next.get(part);
  if (!next) node.next.set(part, (next = { next: new Map() }));
  return next;
}
function gateWithText(joins: readonly GateJoin[]): string {
  let node = gateTexts;
  for (const joined of joins) node = stepOf(stepOf(node, joined.join), joined.columns);
  node.text ??= `SELECT ${GATE_COLUMNS}, ${joins.map((j) => j.columns).join(', ')}
  ${GATE_FROM}
  ${joins.map((j) => j.join).join('\n  ')}`;
  return node.text;
}

/**
 * What the daily loss check weighs, as columns another module's statement returns beside what it writes
 * (decision 461): whether the user has limits of their own, their daily loss limit, the platform's cap.
 * `user` is that statement's SQL expression for the user's id. Read in the statement that stores a fill,
 * they are the limits in force when the fill is made (decisions 271, 340).
 */
export function dailyLossColumnsText(user: string): string {
  const own = `FROM "${getTableName(tradingLimits)}" AS rl WHERE rl.user_id = ${user}`;
  return `EXISTS (SELECT 1 ${own}) AS risk_own_set,
    (SELECT rl.daily_loss_limit::text ${own}) AS risk_own_loss,
    (SELECT rp.daily_loss_limit::text FROM "${getTableName(tradingPlatform)}" AS rp WHERE rp.id = 1) AS risk_cap_loss`;
}

/**
 * Whether a daily loss limit is in force for `user`, as a condition of another module's statement: the user's
 * own limit while they have limits of their own, else the configured default (`defaultLimit`, that statement's
 * parameter, `numeric` or null), either way held to the platform's cap (`dailyLossLimitOf` in SQL). A fill's
 * statement writes its daily loss check as owed only then (decision 1030).
 */
export function dailyLossInForceText(user: string, defaultLimit: string): string {
  const own = `FROM "${getTableName(tradingLimits)}" AS rl WHERE rl.user_id = ${user}`;
  return `(CASE WHEN EXISTS (SELECT 1 ${own}) THEN (SELECT rl.daily_loss_limit ${own}) ELSE ${defaultLimit}::numeric END
    IS NOT NULL OR EXISTS (SELECT 1 FROM "${getTableName(tradingPlatform)}" AS rp
      WHERE rp.id = 1 AND rp.daily_loss_limit IS NOT NULL))`;
}

/** The figures of `dailyLossColumnsText` as a row of that statement returns them. */
export function dailyLossLimitsOf(raw: Record<string, unknown>): DailyLossLimits {
  const text = (value: unknown) => (value === null || value === undefined ? null : String(value));
  return {
    own: raw.risk_own_set === true ? text(raw.risk_own_loss) : undefined,
    cap: text(raw.risk_cap_loss),
  };
}

export function createTradingRepository(db: DbExecutor) {
  const platformRow = async (executor: DbExecutor = db): Promise<PlatformRow | undefined> => {
    const [row] = await executor.select().from(tradingPlatform).where(eq(tradingPlatform.id, 1)).limit(1);
    return row;
  };

  return {
    /**
     * The user's halt, the platform's row and the user's own limits in one statement, read on every
     * order (decision 271): named, since its plan is the same for any user.
     */
    async gate(userId: string, executor: DbExecutor = db): Promise<Gate> {
      const [row] = rowsOf<GateRow>(await executeText(executor, 'trading_gate', GATE, [userId]));
      return gateOf(row!);
    },

    /**
     * The gate and other modules' reads in one statement (decisions 501, 650): the gate and those reads' row.
     * Each join numbers its parameters after the ones before it (the first from `$2`).
     */
    async gateWith(
      userId: string,
      joins: readonly GateJoin[],
      executor: DbExecutor = db,
    ): Promise<{ gate: Gate; row: Record<string, unknown> }> {
      const params = joins.length === 1 ? [userId, ...joins[0]!.params] : [userId, ...joins.flatMap((j) => j.params)];
      const [row] = rowsOf<GateRow & Record<string, unknown>>(
        await executeText(executor, 'trading_gate_with', gateWithText(joins), params),
      );
      return { gate: gateOf(row!), row: row! };
    },

    /** The user's own limits; undefined while the user has never changed them. */
    async ownLimits(userId: string, executor: DbExecutor = db): Promise<Limits | undefined> {
      const [row] = await executor.select().from(tradingLimits).where(eq(tradingLimits.userId, userId)).limit(1);
      return row && limitsOf(row);
    },

    /** The user's own limits, the row locked for a change in this transaction. */
    async ownLimitsForUpdate(userId: string, executor: DbExecutor): Promise<Limits | undefined> {
      const [row] = await executor
        .select()
        .from(tradingLimits)
        .where(eq(tradingLimits.userId, userId))
        .for('update')
        .limit(1);
      return row && limitsOf(row);
    },

    /**
     * Sets the fields given; a user's first change starts from `initial` (the defaults), so two first
     * changes at once each keep their fields.
     */
    async saveLimits(userId: string, initial: Limits, patch: LimitsPatch, now: Date, executor: DbExecutor) {
      const set = { ...given(patch), updatedAt: now };
      const [row] = await executor
        .insert(tradingLimits)
        .values({ userId, ...limitsOf(initial), ...set })
        .onConflictDoUpdate({ target: tradingLimits.userId, set })
        .returning();
      return limitsOf(row!);
    },

    async caps(executor: DbExecutor = db): Promise<Limits | undefined> {
      const row = await platformRow(executor);
      return row && limitsOf(row);
    },

    /** Sets the caps given, keeping the others (and the platform's halt). */
    async saveCaps(patch: LimitsPatch, now: Date, executor: DbExecutor): Promise<Limits> {
      const set = { ...given(patch), updatedAt: now };
      const [row] = await executor
        .insert(tradingPlatform)
        .values({ id: 1, ...set })
        .onConflictDoUpdate({ target: tradingPlatform.id, set })
        .returning();
      return limitsOf(row!);
    },

    async platformHalt(executor: DbExecutor = db): Promise<PlatformHalt | undefined> {
      return platformHaltOf(await platformRow(executor));
    },

    /** Halts the platform; undefined when it already was (its first reason and time stay). */
    async haltPlatform(reason: string, now: Date, executor: DbExecutor): Promise<PlatformHalt | undefined> {
      const set = { halted: true, haltReason: reason, haltedAt: now, updatedAt: now };
      const [row] = await executor
        .insert(tradingPlatform)
        .values({ id: 1, ...set })
        .onConflictDoUpdate({ target: tradingPlatform.id, set, setWhere: eq(tradingPlatform.halted, false) })
        .returning();
      return platformHaltOf(row);
    },

    /** Lifts the platform's halt; the halt it lifted, or undefined when there was none. */
    async resumePlatform(now: Date, executor: DbExecutor): Promise<PlatformHalt | undefined> {
      const before = await executor
        .select()
        .from(tradingPlatform)
        .where(and(eq(tradingPlatform.id, 1), eq(tradingPlatform.halted, true)))
        .for('update');
      if (before.length === 0) return undefined;
      await executor
        .update(tradingPlatform)
        .set({ halted: false, haltReason: null, haltedAt: null, updatedAt: now })
        .where(eq(tradingPlatform.id, 1));
      return platformHaltOf(before[0]);
    },

    /** The user's halt row, whether or not it still holds. */
    async userHalt(userId: string, executor: DbExecutor = db): Promise<UserHalt | undefined> {
      const [row] = await executor.select().from(tradingHalts).where(eq(tradingHalts.userId, userId)).limit(1);
      return row && { cause: row.cause, reason: row.reason, haltedAt: row.haltedAt, until: row.until };
    },

    /**
     * Halts the user; the halt written, or undefined when one already holds. A daily-loss halt also
     * replaces the user's own (it cannot be lifted the same day); any halt replaces one that has ended.
     */
    async haltUser(userId: string, halt: UserHalt, now: Date, executor: DbExecutor): Promise<UserHalt | undefined> {
      const values = { cause: halt.cause, reason: halt.reason, haltedAt: halt.haltedAt, until: halt.until };
      const ended = and(isNotNull(tradingHalts.until), lte(tradingHalts.until, now));
      const upgrade = halt.cause === 'daily_loss' ? eq(tradingHalts.cause, 'user' satisfies HaltCause) : undefined;
      const [row] = await executor
        .insert(tradingHalts)
        .values({ userId, ...values })
        .onConflictDoUpdate({
          target: tradingHalts.userId,
          set: values,
          setWhere: upgrade ? or(ended, upgrade) : ended,
        })
        .returning();
      return row && { cause: row.cause, reason: row.reason, haltedAt: row.haltedAt, until: row.until };
    },

    /** Lifts the user's own halt (or one that has ended); the halt lifted, or undefined. */
    async endUserHalt(userId: string, now: Date, executor: DbExecutor): Promise<UserHalt | undefined> {
      const [row] = await executor
        .delete(tradingHalts)
        .where(
          and(
            eq(tradingHalts.userId, userId),
            or(eq(tradingHalts.cause, 'user' satisfies HaltCause), lte(tradingHalts.until, now)),
          ),
        )
        .returning();
      return row && { cause: row.cause, reason: row.reason, haltedAt: row.haltedAt, until: row.until };
    },
  };
}

export type TradingRepository = ReturnType<typeof createTradingRepository>;
