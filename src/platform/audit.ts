// The audit trail: every state-changing operation records who did what to whom. Each module declares
// its own actions and writes through its own `auditWriter(...)` binding, so its calls are typed by its
// actions; the platform names none of them (docs/decisions/179).
import { and, eq, isNull, ne, or, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
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

export interface AuditWriter<Action extends string> {
  audit(event: AuditEvent<Action>, now: Date, executor: DbExecutor): Promise<void>;
  /** Several entries in one statement, for work done set by set. */
  auditAll(events: readonly AuditEvent<Action>[], now: Date, executor: DbExecutor): Promise<void>;
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
    // Several entries in one statement, for work done set by set. The rows travel as one JSON
    // parameter rather than nine parameters a row: thousands of entries cost one parse of a short statement.
    async auditAll(events, now, executor) {
      if (events.length === 0) return;
      const rows = events.map((event) => ({
        ...auditRow(event, now),
        // Time-ordered, as the column's default in the app gives it (schema.ts); this statement is plain SQL.
        id: uuidv7(),
        createdAt: now.toISOString(),
      }));
      await executor.execute(sql`
        INSERT INTO ${auditLog}
          (id, actor_id, actor_type, action, subject_user_id, target_type, target_id, details, ip, created_at)
        SELECT r."id", r."actorId", r."actorType", r."action", r."subjectUserId", r."targetType", r."targetId",
          r."details", r."ip", r."createdAt"
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(
          "id" uuid, "actorId" uuid, "actorType" text, "action" text, "subjectUserId" uuid,
          "targetType" text, "targetId" text, "details" jsonb, "ip" text, "createdAt" timestamptz
        )`);
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
