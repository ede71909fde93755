import { and, asc, eq, getTableColumns, inArray, ne, notInArray, sql, type SQL } from 'drizzle-orm';
import { dateOrNull, rowOffset, rowsOf, type DbExecutor } from '../../platform/db/database.ts';
import { ADVISORY_LOCK } from '../../platform/db/advisory-locks.ts';
import {
  commandCenterTaskAssigneeDayCounts,
  commandCenterTaskBlockers,
  commandCenterTaskComments,
  commandCenterTaskCounts,
  commandCenterTaskDayCounts,
  commandCenterTasks,
} from './command-center.tables.ts';
import {
  CLOSED_STATUSES,
  SOURCE_TYPES,
  type SourceType,
  TASK_PRIORITIES,
  TASK_STATUSES,
  type TaskPriority,
  type TaskStatus,
} from './tasks.schemas.ts';
import { literalOf } from '../../platform/db/literals.ts';
import { descending } from '../../platform/db/order.ts';
import { executePrepared } from '../../platform/db/prepared.ts';
import {
  beforeStart,
  DEEP_OFFSET,
  type KeptCounts,
  skippedFromStart,
  totalAndNewestDays,
  totalAndStart,
  withinNewestDays,
} from '../../platform/db/day-walk.ts';

export type TaskRow = typeof commandCenterTasks.$inferSelect;
export type NewTask = typeof commandCenterTasks.$inferInsert;
export type TaskPatch = Partial<Omit<NewTask, 'id' | 'createdAt' | 'createdBy'>>;
export type CommentRow = typeof commandCenterTaskComments.$inferSelect;

interface TaskFilters {
  status?: TaskStatus;
  assignee?: string;
  priority?: TaskPriority;
  sourceType?: SourceType;
  limit: number;
  offset: number;
}

/** A task as the board lists it: its row, the tasks blocking it and how many comments it has. */
export interface ListedTask {
  row: TaskRow;
  blockedBy: string[];
  commentCount: number;
}

/** Every column of a task under its field name, for raw statements. */
const taskColumns = sql.join(
  Object.entries(getTableColumns(commandCenterTasks)).map(
    ([field, column]) => sql`${column} AS ${sql.identifier(field)}`,
  ),
  sql`, `,
);

/** A listed task as the statement answers it: timestamps as the engine gives them (text or `Date`). */
type ListedTaskRaw = Omit<TaskRow, 'createdAt' | 'updatedAt' | 'completedAt'> & {
  total: number | string;
  blockedBy: string[];
  commentCount: number;
  createdAt: Date | string;
  updatedAt: Date | string;
  completedAt: Date | string | null;
};

export function createTasksRepository(db: DbExecutor) {
  return {
    /**
     * Every change to the task graph takes this for its transaction, so two edits cannot each pass the cycle
     * check and together close a cycle.
     */
    async lockGraph(executor: DbExecutor): Promise<void> {
      await executor.execute(sql`SELECT pg_advisory_xact_lock(${ADVISORY_LOCK.taskGraph})`);
    },

    async insert(task: NewTask, executor: DbExecutor = db): Promise<TaskRow> {
      const [row] = await executor.insert(commandCenterTasks).values(task).returning();
      return row!;
    },

    async find(id: string, executor: DbExecutor = db): Promise<TaskRow | undefined> {
      const [row] = await executor.select().from(commandCenterTasks).where(eq(commandCenterTasks.id, id)).limit(1);
      return row;
    },

    /** Locks the row so concurrent updates of one task apply one after the other. */
    async findForUpdate(id: string, executor: DbExecutor): Promise<TaskRow | undefined> {
      const [row] = await executor
        .select()
        .from(commandCenterTasks)
        .where(eq(commandCenterTasks.id, id))
        .for('update')
        .limit(1);
      return row;
    },

    async update(id: string, patch: TaskPatch, executor: DbExecutor): Promise<TaskRow> {
      const [row] = await executor
        .update(commandCenterTasks)
        .set(patch)
        .where(eq(commandCenterTasks.id, id))
        .returning();
      return row!;
    },

    async existingIds(ids: readonly string[], executor: DbExecutor = db): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const rows = await executor
        .select({ id: commandCenterTasks.id })
        .from(commandCenterTasks)
        .where(inArray(commandCenterTasks.id, [...ids]));
      return new Set(rows.map((r) => r.id));
    },

    async replaceBlockers(taskId: string, blockerIds: readonly string[], executor: DbExecutor): Promise<void> {
      await executor.delete(commandCenterTaskBlockers).where(eq(commandCenterTaskBlockers.taskId, taskId));
      if (blockerIds.length === 0) return;
      await executor.insert(commandCenterTaskBlockers).values(blockerIds.map((blockerId) => ({ taskId, blockerId })));
    },

    async blockersOf(taskIds: readonly string[], executor: DbExecutor = db): Promise<Map<string, string[]>> {
      const map = new Map<string, string[]>(taskIds.map((id) => [id, []]));
      if (taskIds.length === 0) return map;
      const rows = await executor
        .select()
        .from(commandCenterTaskBlockers)
        .where(inArray(commandCenterTaskBlockers.taskId, [...taskIds]))
        .orderBy(asc(commandCenterTaskBlockers.blockerId));
      for (const row of rows) map.get(row.taskId)!.push(row.blockerId);
      return map;
    },

    /** True when `target` is `start` or one of its ancestors (following parent links upwards). */
    async isSelfOrAncestor(start: string, target: string, executor: DbExecutor): Promise<boolean> {
      const rows = await executor.execute(sql`
        WITH RECURSIVE up(id, parent) AS (
          SELECT id, parent_task_id FROM command_center_tasks WHERE id = ${start}
          UNION
          SELECT t.id, t.parent_task_id FROM command_center_tasks t JOIN up ON t.id = up.parent
        )
        SELECT 1 AS hit FROM up WHERE id = ${target} LIMIT 1`);
      return resultRows(rows).length > 0;
    },

    /** True when `target` is among `starts` or anything they are (transitively) blocked by. */
    async blockerChainReaches(starts: readonly string[], target: string, executor: DbExecutor): Promise<boolean> {
      if (starts.length === 0) return false;
      const list = sql.join(
        starts.map((id) => sql`${id}::uuid`),
        sql`, `,
      );
      const rows = await executor.execute(sql`
        WITH RECURSIVE reach(id) AS (
          SELECT unnest(ARRAY[${list}])
          UNION
          SELECT b.blocker_id FROM command_center_task_blockers b JOIN reach r ON b.task_id = r.id
        )
        SELECT 1 AS hit FROM reach WHERE id = ${target} LIMIT 1`);
      return resultRows(rows).length > 0;
    },

    async insertComment(
      comment: { taskId: string; body: string; authorId: string | null; createdAt: Date },
      executor: DbExecutor = db,
    ): Promise<CommentRow> {
      const [row] = await executor.insert(commandCenterTaskComments).values(comment).returning();
      return row!;
    },

    /**
     * The task's latest `limit` comments, oldest first, and how many it has (decision 1001): down the
     * (task_id, created_at) index, whatever the number of comments.
     */
    async latestCommentsOf(
      taskId: string,
      limit: number,
      executor: DbExecutor = db,
    ): Promise<{ comments: CommentRow[]; count: number }> {
      const c = commandCenterTaskComments;
      const latest = await executor
        .select()
        .from(c)
        .where(eq(c.taskId, taskId))
        // PostgreSQL's DESC (nulls first), not `descending`: it is the ascending index read backwards.
        .orderBy(sql`${c.createdAt} DESC`, sql`${c.id} DESC`)
        .limit(limit);
      const count =
        latest.length < limit
          ? latest.length
          : Number(
              (await executor.select({ n: sql<number>`count(*)::int` }).from(c).where(eq(c.taskId, taskId)))[0]?.n,
            );
      return { comments: latest.reverse(), count };
    },

    /**
     * A page of the board, newest first, with each task's blockers and number of comments, and how many
     * tasks match (from the counts the database keeps, docs/decisions/124): one statement, prepared
     * once per shape (the filters given, decision 192; every shape since decision 1470). A status,
     * priority or source is written into the page's text, so that the page is planned for it: under the
     * one plan for any value, a rare status (the tasks in progress among thousands done) walked the date
     * order through every task (decision 1400).
     * Each status and priority has an index of its own in the date order, which the written value picks
     * (decision 1450): a backlog's page reads its own tasks, however old.
     * An assignee is any text, so it stays bound. Its page reads only the days that hold it, from its
     * counts per day (decision 1470), so the one plan for any value serves it: an assignee whose tasks are
     * all old, or a rare one, is not read behind every task since. It was planned for its value in a
     * transaction of its own before (decision 1400), and still walked a backlog's newer tasks.
     */
    async list(filters: TaskFilters): Promise<{ entries: ListedTask[]; total: number }> {
      const conditions: SQL[] = [];
      if (filters.status)
        conditions.push(sql`${commandCenterTasks.status} = ${literalOf(filters.status, TASK_STATUSES)}`);
      if (filters.assignee) conditions.push(eq(commandCenterTasks.assignee, filters.assignee));
      if (filters.priority)
        conditions.push(sql`${commandCenterTasks.priority} = ${literalOf(filters.priority, TASK_PRIORITIES)}`);
      if (filters.sourceType)
        conditions.push(sql`${commandCenterTasks.sourceType} = ${literalOf(filters.sourceType, SOURCE_TYPES)}`);
      // One assignee's page reads the days that hold it, from its counts per day (decision 1470). A deep
      // page of the board, or of one status, starts at its day (decision 195); under the other filters,
      // and near the top, the counts by every filter give the total and the page skips its rows.
      const offset = rowOffset(filters.offset);
      const byDay = !filters.assignee && !filters.priority && !filters.sourceType && filters.offset >= DEEP_OFFSET;
      const counts: KeptCounts = {
        table: commandCenterTaskCounts,
        n: commandCenterTaskCounts.n,
        where: and(
          filters.status ? eq(commandCenterTaskCounts.status, filters.status) : undefined,
          filters.assignee ? eq(commandCenterTaskCounts.assignee, filters.assignee) : undefined,
          filters.priority ? eq(commandCenterTaskCounts.priority, filters.priority) : undefined,
          filters.sourceType ? eq(commandCenterTaskCounts.sourceType, filters.sourceType) : undefined,
        ),
      };
      const days = commandCenterTaskAssigneeDayCounts;
      const [head, within] = filters.assignee
        ? [
            totalAndNewestDays(
              {
                table: days,
                n: days.n,
                day: days.createdDay,
                where: and(
                  eq(days.assignee, filters.assignee),
                  filters.status ? eq(days.status, filters.status) : undefined,
                  filters.priority ? eq(days.priority, filters.priority) : undefined,
                  filters.sourceType ? eq(days.sourceType, filters.sourceType) : undefined,
                ),
              },
              counts,
              offset,
              filters.limit,
            ),
            withinNewestDays(commandCenterTasks.createdAt, offset),
          ]
        : [
            totalAndStart(
              byDay
                ? {
                    table: commandCenterTaskDayCounts,
                    n: commandCenterTaskDayCounts.n,
                    day: commandCenterTaskDayCounts.createdDay,
                    where: filters.status ? eq(commandCenterTaskDayCounts.status, filters.status) : undefined,
                  }
                : counts,
              offset,
            ),
            beforeStart(commandCenterTasks.createdAt),
          ];
      const statement = sql`
        WITH RECURSIVE ${head},
        page AS (
          SELECT ${taskColumns} FROM ${commandCenterTasks}
          WHERE ${and(...conditions, within)}
          ORDER BY ${descending(commandCenterTasks.createdAt)}, ${descending(commandCenterTasks.id)}
          LIMIT ${filters.limit} OFFSET ${skippedFromStart(offset)}
        )
        SELECT total.n AS total,
          page.*,
          (SELECT coalesce(json_agg(${commandCenterTaskBlockers.blockerId} ORDER BY ${commandCenterTaskBlockers.blockerId}), '[]')
            FROM ${commandCenterTaskBlockers} WHERE ${commandCenterTaskBlockers.taskId} = page.id) AS "blockedBy",
          (SELECT count(*)::int FROM ${commandCenterTaskComments}
            WHERE ${commandCenterTaskComments.taskId} = page.id) AS "commentCount"
        FROM total LEFT JOIN page ON true
        ORDER BY page."createdAt" DESC NULLS LAST, page.id DESC NULLS LAST`;
      const raw = rowsOf<ListedTaskRaw>(await executePrepared(db, 'tasks_page', statement));
      const entries: ListedTask[] = [];
      for (const { total: _, blockedBy, commentCount, createdAt, updatedAt, completedAt, ...row } of raw) {
        if (row.id === null) continue;
        entries.push({
          row: {
            ...row,
            createdAt: new Date(createdAt),
            updatedAt: new Date(updatedAt),
            completedAt: dateOrNull(completedAt),
          },
          blockedBy,
          commentCount,
        });
      }
      return { entries, total: Number(raw[0]?.total ?? 0) };
    },

    async countsByStatus(): Promise<Map<string, number>> {
      const rows = await db
        .select({ status: commandCenterTaskCounts.status, n: sql<number>`sum(${commandCenterTaskCounts.n})` })
        .from(commandCenterTaskCounts)
        .groupBy(commandCenterTaskCounts.status);
      return new Map(rows.map((r) => [r.status, Number(r.n)]));
    },

    /** Open tasks per assignee. */
    async openTasksByAssignee(): Promise<Map<string, number>> {
      const rows = await db
        .select({ assignee: commandCenterTaskCounts.assignee, n: sql<number>`sum(${commandCenterTaskCounts.n})` })
        .from(commandCenterTaskCounts)
        .where(
          and(
            ne(commandCenterTaskCounts.assignee, ''),
            notInArray(commandCenterTaskCounts.status, [...CLOSED_STATUSES]),
          ),
        )
        .groupBy(commandCenterTaskCounts.assignee);
      return new Map(rows.map((r) => [r.assignee, Number(r.n)]));
    },

    /** Assignees and filer ids of the tasks that agents filed: the agents the board knows of. */
    async agentIdsFromTasks(): Promise<string[]> {
      const rows = await db.execute(sql`
        SELECT assignee AS agent_id FROM command_center_tasks WHERE source_type = 'agent' AND assignee IS NOT NULL
        UNION
        SELECT source_id FROM command_center_tasks WHERE source_type = 'agent' AND source_id IS NOT NULL`);
      return resultRows<{ agent_id: string }>(rows).map((r) => r.agent_id);
    },
  };
}

/** node-postgres and PGlite both answer `{ rows }` to a raw statement. */
function resultRows<T = Record<string, unknown>>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

export type TasksRepository = ReturnType<typeof createTasksRepository>;
