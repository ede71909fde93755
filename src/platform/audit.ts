// The audit trail: every state-changing operation records who did what to whom. Each module declares
// its own actions and writes through its own `auditWriter(...)` binding, so its calls are typed by its
// actions; the platform names none of them (docs/decisions/179).
import { and, eq, getTableName, isNull, ne, or, sql, type SQL } from 'drizzle-orm';
import { uuidv7 } from './uuid-v7.ts';
import type { DbExecutor } from './db/database.ts';
import { auditLog, type ActorType } from './db/schema.ts';
import { descending } from './db/order.ts';

export type { ActorType };
export type AuditRow = typeof auditLog.$inferSelect;

export interface AuditEvent<Action extends string = string> {
  actorId?: string | null;
  actorType: ActorType;
  /** A dotted verb, `<area>.<thing>.<verb>`, of the writing module's list. */
  action: Action;
  subjectUserId?: string | null;
  targetType?: string;
  targetId?: string;
  /** Never secrets: ids, names and changed field names only. */
  details?: Record<string, unknown>;
  ip?: string | null;
}

const auditRow = (event: AuditEvent, now: Date) => ({
  actorId: event.actorId ?? null,
  actorType: event.actorType,
  action: event.action,
  subjectUserId: event.subjectUserId ?? null,
  targetType: event.targetType,
  targetId: event.targetId,
  details: event.details ?? {},
  ip: event.ip ?? null,
  createdAt: now,
});

/**
 * An entry's fields as SQL over the columns of a row source of the caller's statement (`auditFrom`).
 * The actor is the service itself: no actor id, no address.
 */
export interface AuditEntrySql<Action extends string> {
  actorType: ActorType;
  /** One action for every row, or one of two by a condition on the row. */
  action: Action | { when: SQL; whenTrue: Action; otherwise: Action };
  subjectUserId: SQL;
  targetType: string;
  targetId: SQL;
  /** A `jsonb` expression. Never secrets: ids, names and changed field names only. */
  details: SQL;
}

/** The values of `auditRowsText`'s two parameters: the entries as JSON, and the time they are written at. */
export type AuditRowsParams = readonly [entries: string, now: Date];

/**
 * The INSERT of `auditRows`' entries, its two parameters at `entries` and `now` (placeholders such as
 * `$10`): text built once by the caller's statement, the same for any number of entries, so it can be named.
 */
export function auditRowsText(entries: string, now: string): string {
  return `INSERT INTO "${getTableName(auditLog)}"
      (id, actor_id, actor_type, action, subject_user_id, target_type, target_id, details, ip, created_at)
    SELECT e.id, e.actor_id, e.actor_type, e.action, e.subject_user_id, e.target_type, e.target_id, e.details,
      e.ip, ${now}::timestamptz
    FROM jsonb_to_recordset(${entries}::jsonb) AS e(id uuid, actor_id uuid, actor_type text,
      action text, subject_user_id uuid, target_type text, target_id text, details jsonb, ip text)`;
}

export interface AuditWriter<Action extends string> {
  audit(event: AuditEvent<Action>, now: Date, executor: DbExecutor): Promise<void>;
  /** Several entries in one statement (nothing written for none). */
  auditAll(events: readonly AuditEvent<Action>[], now: Date, executor: DbExecutor): Promise<void>;
  /**
   * The INSERT of one entry per row of `source` (a row source the caller's statement names, e.g. a
   * data-modifying CTE's `RETURNING`), for use inside that statement: work done set by set whose rows
   * never need to reach the app is recorded by the database as it is done. Ids are time-ordered, as
   * the app's (`uuid_v7()`, platform.routines.sql).
   */
  auditFrom(source: SQL, entry: AuditEntrySql<Action>, now: Date): SQL;
  /**
   * The values of these entries' INSERT (`auditRowsText`), for use inside the caller's statement (a
   * data-modifying CTE), so that a change and its entries are one statement. One parameter whatever
   * their number: the statement's text stays the same, and can be named. Ids as `auditAll` makes them.
   */
  auditRows(events: readonly AuditEvent<Action>[], now: Date): AuditRowsParams;
}

/**
 * A module's writer, typed by the actions it may write: its own list (and, where it records a change
 * of state another module owns, that module's list). The lists are for typing; the database's CHECK
 * holds every module's actions.
 */
export function auditWriter<const Action extends string>(..._actions: (readonly Action[])[]): AuditWriter<Action> {
  return {
    async audit(event, now, executor) {
      await executor.insert(auditLog).values(auditRow(event, now));
    },
    async auditAll(events, now, executor) {
      if (events.length > 0) await executor.insert(auditLog).values(events.map((event) => auditRow(event, now)));
    },
    auditRows(events, now) {
      const rows = events.map((event) => ({
        id: uuidv7(),
        actor_id: event.actorId ?? null,
        actor_type: event.actorType,
        action: event.action,
        subject_user_id: event.subjectUserId ?? null,
        target_type: event.targetType ?? null,
        target_id: event.targetId ?? null,
        details: event.details ?? {},
        ip: event.ip ?? null,
      }));
      return [JSON.stringify(rows), now];
    },
    auditFrom(source, entry, now) {
      const action =
        typeof entry.action === 'string'
          ? sql`${entry.action}::text`
          : sql`CASE WHEN ${entry.action.when} THEN ${entry.action.whenTrue}::text ELSE ${entry.action.otherwise}::text END`;
      return sql`
        INSERT INTO ${auditLog}
          (id, actor_id, actor_type, action, subject_user_id, target_type, target_id, details, ip, created_at)
        SELECT uuid_v7(), NULL, ${entry.actorType}::text, ${action}, ${entry.subjectUserId}, ${entry.targetType}::text,
          ${entry.targetId}, ${entry.details}, NULL, ${now}::timestamptz
        FROM ${source}
        -- In the subject index's order: thousands of entries about as many users then walk that index
        -- once, leaf after leaf, instead of descending to a random leaf for each (measured: a third
        -- less time for 5,000 entries in a log of 2,000,000). By position: a name could mean an input
        -- or an output column.
        ORDER BY 5`;
    },
  };
}

/**
 * Entries where the user is the subject or the actor, newest first. Two index-ordered halves
 * (subject index, actor index) merged, so a rare user in a large log stays cheap.
 */
export async function auditTrailOf(userId: string, limit: number, executor: DbExecutor): Promise<AuditRow[]> {
  const bySubject = executor
    .select()
    .from(auditLog)
    .where(eq(auditLog.subjectUserId, userId))
    .orderBy(descending(auditLog.createdAt), descending(auditLog.id))
    .limit(limit);
  const byActor = executor
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.actorId, userId), or(isNull(auditLog.subjectUserId), ne(auditLog.subjectUserId, userId))))
    .orderBy(descending(auditLog.createdAt), descending(auditLog.id))
    .limit(limit);
  const [a, b] = await Promise.all([bySubject, byActor]);
  return [...a, ...b]
    .sort((x, y) => y.createdAt.getTime() - x.createdAt.getTime() || (x.id < y.id ? 1 : x.id > y.id ? -1 : 0))
    .slice(0, limit);
}
