// The issue writes recorded before they are sent to the tracker (decision 1010): each intent is the id the
// issue will have there and the audit entry its creation writes. Settling one (the issue exists) writes the
// audit row and removes the intent in one transaction, so an audit row is written once, whoever settles.
import { and, asc, eq, lt, sql } from 'drizzle-orm';
import { descending } from '../../platform/db/order.ts';
import { rowsOf, type Db } from '../../platform/db/database.ts';
import { audit, type TrackerAuditAction } from './tracker.audit.ts';
import { type IntentAudit, trackerIssueIntents } from './tracker.tables.ts';
import type { TrackerIssue } from './adapters/tracker-backend.ts';

export type IssueIntent = typeof trackerIssueIntents.$inferSelect;

export function createIssueIntentsRepository(db: Db) {
  return {
    /** Records (or, for an id re-used by a retry, renews) the intent; `now` its time. */
    async record(intent: { id: string; audit: IntentAudit; agentKey?: string }, now: Date): Promise<void> {
      const values = { id: intent.id, audit: intent.audit, agentKey: intent.agentKey ?? null, createdAt: now };
      await db
        .insert(trackerIssueIntents)
        .values(values)
        .onConflictDoUpdate({ target: trackerIssueIntents.id, set: { audit: values.audit, createdAt: now } });
    },

    async find(id: string): Promise<IssueIntent | undefined> {
      const [row] = await db.select().from(trackerIssueIntents).where(eq(trackerIssueIntents.id, id));
      return row;
    },

    /** The agent filing's latest intent left behind, if any (its id is re-used by the retry). */
    async latestForAgent(agentKey: string): Promise<IssueIntent | undefined> {
      const [row] = await db
        .select()
        .from(trackerIssueIntents)
        .where(eq(trackerIssueIntents.agentKey, agentKey))
        .orderBy(descending(trackerIssueIntents.createdAt))
        .limit(1);
      return row;
    },

    /** Intents recorded before `before`, oldest first. */
    async stale(before: Date, limit: number): Promise<IssueIntent[]> {
      return db
        .select()
        .from(trackerIssueIntents)
        .where(lt(trackerIssueIntents.createdAt, before))
        .orderBy(asc(trackerIssueIntents.createdAt))
        .limit(limit);
    },

    /**
     * The issue exists: its audit row written (dated by its creation at the tracker) and the intent removed,
     * together. Answers false when another request settled it first (nothing written then).
     */
    async settle(issue: TrackerIssue, backend: string): Promise<boolean> {
      return db.transaction(async (tx) => {
        const [intent] = await tx.delete(trackerIssueIntents).where(eq(trackerIssueIntents.id, issue.id)).returning();
        if (!intent) return false;
        const { action, actorId, ip, details } = intent.audit;
        await audit(
          {
            actorId,
            actorType: 'user',
            action: action as TrackerAuditAction,
            targetType: 'tracker_issue',
            targetId: issue.id,
            ip,
            details: { identifier: issue.identifier, backend, ...details },
          },
          new Date(issue.createdAt),
          tx,
        );
        return true;
      });
    },

    /**
     * The fingerprint of the request that created the issue with this id (decision 1120): from its create's
     * audit row, read by the audit log's target index (decision 1180), or from its intent not settled yet;
     * undefined when neither has one.
     */
    async createdWith(issueId: string, actorId: string): Promise<string | undefined> {
      const [row] = rowsOf<{ fingerprint: string | null }>(
        await db.execute(sql`
          SELECT details->>'request' AS fingerprint FROM audit_log
          WHERE actor_id = ${actorId} AND action = 'tracker.issue.create' AND target_type = 'tracker_issue'
            AND target_id = ${issueId}
          UNION ALL
          SELECT audit->'details'->>'request' FROM tracker_issue_intents WHERE id = ${issueId}
          LIMIT 1`),
      );
      return row?.fingerprint ?? undefined;
    },

    /** The tracker did not create the issue (it refused it, or it is not there long after): nothing to audit. */
    async drop(id: string, before?: Date): Promise<void> {
      await db
        .delete(trackerIssueIntents)
        .where(and(eq(trackerIssueIntents.id, id), before ? lt(trackerIssueIntents.createdAt, before) : undefined));
    },
  };
}

export type IssueIntentsRepository = ReturnType<typeof createIssueIntentsRepository>;
