// Queries of the local tracker backend. Each takes the executor last, so the backend can compose
// them inside one transaction.
import { and, asc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import { ADVISORY_LOCK } from '../../platform/db/advisory-locks.ts';
import { rowsOf, type DbExecutor } from '../../platform/db/database.ts';
import { iso } from '../../platform/http/schemas.ts';
import type { IssueFields, IssueQuery, TrackerIssue } from './adapters/tracker-backend.ts';
import { plannedForValues, uuidLiteral } from '../../platform/db/literals.ts';
import { isUuid } from '../../platform/ids.ts';
import { isIdentifier, priorityLabel } from './tracker.domain.ts';
import {
  trackerIssueLabels,
  trackerIssues,
  trackerLabels,
  trackerTeams,
  trackerWorkflowStates,
} from './tracker.tables.ts';
import { descending } from '../../platform/db/order.ts';

export type TeamRow = typeof trackerTeams.$inferSelect;
export type StateRow = typeof trackerWorkflowStates.$inferSelect;
type IssueInsert = typeof trackerIssues.$inferInsert;

/** Where a local issue can be read over HTTP; the local tracker has no web UI of its own. */
const issueUrl = (identifier: string) => `/api/v1/tracker/issues/${identifier}`;

export function createTrackerRepository(db: DbExecutor) {
  return {
    async insertTeam(
      team: { id: string; key: string; name: string },
      now: Date,
      executor: DbExecutor = db,
    ): Promise<void> {
      await executor
        .insert(trackerTeams)
        .values({ ...team, createdAt: now })
        .onConflictDoNothing();
    },

    async insertStates(
      teamId: string,
      states: readonly { name: string; type: string; color: string }[],
      now: Date,
      executor: DbExecutor = db,
    ): Promise<void> {
      await executor
        .insert(trackerWorkflowStates)
        .values(states.map((s, position) => ({ ...s, teamId, position, createdAt: now })))
        .onConflictDoNothing();
    },

    async findTeam(id: string, executor: DbExecutor = db): Promise<TeamRow | undefined> {
      if (!isUuid(id)) return undefined;
      const [row] = await executor.select().from(trackerTeams).where(eq(trackerTeams.id, id)).limit(1);
      return row;
    },

    async listStates(teamId: string, executor: DbExecutor = db): Promise<StateRow[]> {
      return executor
        .select()
        .from(trackerWorkflowStates)
        .where(eq(trackerWorkflowStates.teamId, teamId))
        .orderBy(asc(trackerWorkflowStates.position));
    },

    /** The team's next issue number; the row lock serialises concurrent creations in one team. */
    async nextNumber(teamId: string, executor: DbExecutor = db): Promise<{ number: number; key: string }> {
      const [row] = await executor
        .update(trackerTeams)
        .set({ issueCounter: sql`${trackerTeams.issueCounter} + 1` })
        .where(eq(trackerTeams.id, teamId))
        .returning({ number: trackerTeams.issueCounter, key: trackerTeams.key });
      return row!;
    },

    async insertIssue(issue: IssueInsert, executor: DbExecutor = db): Promise<string> {
      const [row] = await executor.insert(trackerIssues).values(issue).returning({ id: trackerIssues.id });
      return row!.id;
    },

    async updateIssue(id: string, set: Partial<IssueInsert>, executor: DbExecutor = db): Promise<void> {
      await executor.update(trackerIssues).set(set).where(eq(trackerIssues.id, id));
    },

    async replaceLabels(issueId: string, labelIds: readonly string[], executor: DbExecutor = db): Promise<void> {
      await executor.delete(trackerIssueLabels).where(eq(trackerIssueLabels.issueId, issueId));
      if (labelIds.length > 0) {
        await executor
          .insert(trackerIssueLabels)
          .values(labelIds.map((labelId) => ({ issueId, labelId })))
          .onConflictDoNothing();
      }
    },

    /** The subset of these ids that are labels. */
    async existingLabelIds(ids: readonly string[], executor: DbExecutor = db): Promise<Set<string>> {
      const valid = ids.filter(isUuid);
      if (valid.length === 0) return new Set();
      const rows = await executor
        .select({ id: trackerLabels.id })
        .from(trackerLabels)
        .where(inArray(trackerLabels.id, valid));
      return new Set(rows.map((r) => r.id));
    },

    async labelsByName(names: readonly string[], executor: DbExecutor = db): Promise<{ id: string; name: string }[]> {
      if (names.length === 0) return [];
      return executor
        .select({ id: trackerLabels.id, name: trackerLabels.name })
        .from(trackerLabels)
        .where(
          inArray(
            sql`lower(${trackerLabels.name})`,
            names.map((n) => n.toLowerCase()),
          ),
        );
    },

    async countLabels(executor: DbExecutor = db): Promise<number> {
      const [row] = await executor.select({ n: sql<number>`count(*)::int` }).from(trackerLabels);
      return row?.n ?? 0;
    },

    async insertLabels(names: readonly string[], now: Date, executor: DbExecutor = db): Promise<void> {
      if (names.length === 0) return;
      await executor
        .insert(trackerLabels)
        .values(names.map((name) => ({ name, color: '#6b7280', createdAt: now })))
        .onConflictDoNothing();
    },

    /** The issue's id and team for a UUID or identifier reference. */
    async findIssueRef(ref: string, executor: DbExecutor = db): Promise<{ id: string; teamId: string } | undefined> {
      const where = refCondition(ref);
      if (!where) return undefined;
      const [row] = await executor
        .select({ id: trackerIssues.id, teamId: trackerIssues.teamId })
        .from(trackerIssues)
        .where(where)
        .limit(1);
      return row;
    },

    /** Taken by every change of parent, for its transaction: two moves cannot each pass the loop check. */
    async lockIssueTree(executor: DbExecutor): Promise<void> {
      await executor.execute(sql`SELECT pg_advisory_xact_lock(${ADVISORY_LOCK.trackerIssueTree})`);
    },

    /** True when `target` is `start` or one of its parents, grandparents and so on. */
    async isSelfOrAncestor(start: string, target: string, executor: DbExecutor = db): Promise<boolean> {
      const rows = await executor.execute(sql`
        WITH RECURSIVE up(id, parent) AS (
          SELECT id, parent_id FROM ${trackerIssues} WHERE id = ${start}
          UNION
          SELECT i.id, i.parent_id FROM ${trackerIssues} i JOIN up ON i.id = up.parent
        )
        SELECT 1 AS hit FROM up WHERE id = ${target} LIMIT 1`);
      return rowsOf(rows).length > 0;
    },

    async findOpenAgentIssueId(
      teamId: string,
      agentId: string,
      title: string,
      executor: DbExecutor = db,
    ): Promise<string | undefined> {
      const [row] = await executor
        .select({ id: trackerIssues.id })
        .from(trackerIssues)
        .innerJoin(trackerWorkflowStates, eq(trackerWorkflowStates.id, trackerIssues.stateId))
        .where(
          and(
            eq(trackerIssues.teamId, teamId),
            eq(trackerIssues.agentId, agentId),
            eq(trackerIssues.title, title),
            sql`${trackerWorkflowStates.type} NOT IN ('completed', 'canceled')`,
          ),
        )
        .orderBy(asc(trackerIssues.createdAt))
        .limit(1);
      return row?.id;
    },

    async loadIssue(id: string, executor: DbExecutor = db): Promise<TrackerIssue | undefined> {
      const [issue] = await loadIssues(eq(trackerIssues.id, id), 1, executor);
      return issue;
    },

    async listIssues(
      query: IssueQuery,
      executor: DbExecutor = db,
    ): Promise<{ issues: TrackerIssue[]; hasMore: boolean }> {
      const conditions: SQL[] = [];
      if (query.stateTypes.length > 0 || query.stateNames.length > 0) {
        // The states asked for are read first, and their ids written into the issues' statement, so that it
        // is planned for them: through the states' join, the one plan for any value walked every issue to
        // find the few started among thousands completed (decision 1410).
        const states = await executor
          .select({ id: trackerWorkflowStates.id })
          .from(trackerWorkflowStates)
          .where(
            or(
              query.stateTypes.length > 0 ? inArray(trackerWorkflowStates.type, query.stateTypes) : undefined,
              query.stateNames.length > 0
                ? inArray(
                    sql`lower(${trackerWorkflowStates.name})`,
                    query.stateNames.map((n) => n.toLowerCase()),
                  )
                : undefined,
            ),
          );
        if (states.length === 0) return { issues: [], hasMore: false };
        conditions.push(
          sql`${trackerIssues.stateId} IN (${sql.join(
            states.map((state) => uuidLiteral(state.id)),
            sql`, `,
          )})`,
        );
      }
      if (query.assigneeId !== undefined) {
        // A reference that cannot be one of our users matches nothing (and must not reach a uuid cast).
        conditions.push(isUuid(query.assigneeId) ? eq(trackerIssues.assigneeId, query.assigneeId) : sql`false`);
      }
      if (query.label !== undefined) {
        conditions.push(sql`EXISTS (SELECT 1 FROM ${trackerIssueLabels} il JOIN ${trackerLabels} l ON l.id = il.label_id
          WHERE il.issue_id = ${trackerIssues.id} AND lower(l.name) = ${query.label.toLowerCase()})`);
      }
      const where = conditions.length > 0 ? and(...conditions) : undefined;
      // An assignee's page is planned for its value: one plan for any person walked every issue for one
      // with a few (decision 1410).
      const rows =
        query.assigneeId !== undefined && isUuid(query.assigneeId)
          ? await plannedForValues(executor, (tx) => loadIssues(where, query.limit + 1, tx))
          : await loadIssues(where, query.limit + 1, executor);
      return { issues: rows.slice(0, query.limit), hasMore: rows.length > query.limit };
    },
  };
}

function refCondition(ref: string): SQL | undefined {
  if (isUuid(ref)) return eq(trackerIssues.id, ref);
  if (isIdentifier(ref)) return eq(trackerIssues.identifier, ref.toUpperCase());
  return undefined;
}

/** Issues with their state, team, assignee and labels, most recently updated first. */
async function loadIssues(where: SQL | undefined, limit: number, executor: DbExecutor): Promise<TrackerIssue[]> {
  const rows = await executor
    .select({
      issue: trackerIssues,
      state: { id: trackerWorkflowStates.id, name: trackerWorkflowStates.name, type: trackerWorkflowStates.type },
      team: { id: trackerTeams.id, key: trackerTeams.key, name: trackerTeams.name },
    })
    .from(trackerIssues)
    .innerJoin(trackerWorkflowStates, eq(trackerWorkflowStates.id, trackerIssues.stateId))
    .innerJoin(trackerTeams, eq(trackerTeams.id, trackerIssues.teamId))
    .where(where)
    .orderBy(descending(trackerIssues.updatedAt), descending(trackerIssues.id))
    .limit(limit);
  if (rows.length === 0) return [];

  const labelRows = await executor
    .select({ issueId: trackerIssueLabels.issueId, id: trackerLabels.id, name: trackerLabels.name })
    .from(trackerIssueLabels)
    .innerJoin(trackerLabels, eq(trackerLabels.id, trackerIssueLabels.labelId))
    .where(
      inArray(
        trackerIssueLabels.issueId,
        rows.map((r) => r.issue.id),
      ),
    )
    .orderBy(asc(trackerLabels.name));
  const labelsByIssue = new Map<string, { id: string; name: string }[]>();
  for (const { issueId, id, name } of labelRows) {
    labelsByIssue.set(issueId, [...(labelsByIssue.get(issueId) ?? []), { id, name }]);
  }

  return rows.map(({ issue, state, team }) => ({
    id: issue.id,
    identifier: issue.identifier,
    title: issue.title,
    description: issue.description,
    priority: issue.priority,
    priorityLabel: priorityLabel(issue.priority),
    state,
    team,
    // Named by the backend, from the identity module.
    assignee: issue.assigneeId === null ? null : { id: issue.assigneeId, name: '' },
    labels: labelsByIssue.get(issue.id) ?? [],
    estimate: issue.estimate,
    dueDate: issue.dueDate,
    projectId: issue.projectId,
    parentId: issue.parentId,
    agentId: issue.agentId,
    url: issueUrl(issue.identifier),
    createdAt: iso(issue.createdAt)!,
    updatedAt: iso(issue.updatedAt)!,
  }));
}

/** The columns an update sets: only the fields given, `null` clearing. */
export function issueColumns(fields: IssueFields): Partial<IssueInsert> {
  const set: Partial<IssueInsert> = {};
  if (fields.title !== undefined) set.title = fields.title;
  if (fields.description !== undefined) set.description = fields.description;
  if (fields.priority !== undefined) set.priority = fields.priority;
  if (fields.assigneeId !== undefined) set.assigneeId = fields.assigneeId;
  if (fields.projectId !== undefined) set.projectId = fields.projectId;
  if (fields.estimate !== undefined) set.estimate = fields.estimate;
  if (fields.dueDate !== undefined) set.dueDate = fields.dueDate;
  return set;
}
