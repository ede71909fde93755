// The audit trail: every state-changing operation records who did what to whom.
import { and, eq, isNull, ne, or } from 'drizzle-orm';
import type { DbExecutor } from './db/database.ts';
import { auditLog, type ActorType, type AuditAction } from './db/schema.ts';
import { descending } from './db/order.ts';

export type { ActorType, AuditAction };
export type AuditRow = typeof auditLog.$inferSelect;

export interface AuditEvent {
  actorId?: string | null;
  actorType: ActorType;
  action: AuditAction;
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

export async function audit(executor: DbExecutor, event: AuditEvent, now: Date): Promise<void> {
  await executor.insert(auditLog).values(auditRow(event, now));
}

/** Several entries in one statement, for work done set by set. */
export async function auditAll(executor: DbExecutor, events: readonly AuditEvent[], now: Date): Promise<void> {
  if (events.length === 0) return;
  await executor.insert(auditLog).values(events.map((event) => auditRow(event, now)));
}

/**
 * Entries where the user is the subject or the actor, newest first. Two index-ordered halves
 * (subject index, actor index) merged, so a rare user in a large log stays cheap.
 */
export async function auditTrailOf(executor: DbExecutor, userId: string, limit: number): Promise<AuditRow[]> {
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
