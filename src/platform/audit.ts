// The audit trail: every state-changing operation records who did what to whom.
import type { DbExecutor } from './db/database.ts';
import { auditLog } from './db/schema.ts';

export interface AuditEvent {
  actorId?: string | null;
  actorType: 'user' | 'admin' | 'system' | 'webhook' | 'job';
  /** Dotted verb, e.g. `auth.login`, `admin.user.suspend`, `exchange.credential.create`. */
  action: string;
  subjectUserId?: string | null;
  targetType?: string;
  targetId?: string;
  /** Never secrets: ids, names and changed field names only. */
  details?: Record<string, unknown>;
  ip?: string | null;
}

export async function audit(executor: DbExecutor, event: AuditEvent, now: Date): Promise<void> {
  await executor.insert(auditLog).values({
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
}
