import { audit } from './command-center.audit.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db, DbExecutor } from '../../platform/db/database.ts';
import { notFound, validationFailed, type ValidationIssue } from '../../platform/http/errors.ts';
import type { CommentRow, ListedTask, TaskPatch, TaskRow, TasksRepository } from './tasks.repository.ts';
import {
  CLOSED_STATUSES,
  TASK_STATUSES,
  type CommentBody,
  type TaskCreateBody,
  type TaskListQuery,
  type TaskStatus,
  type TaskUpdateBody,
} from './tasks.schemas.ts';
import type { Actor } from '../../platform/auth/actor.ts';
import { isUuid } from '../../platform/ids.ts';

export type { Actor };

const taskNotFound = () => notFound('Task not found');

function referenceIssue(loc: (string | number)[], input: unknown, error: string): ValidationIssue {
  return { type: 'value_error', loc, msg: `Value error, ${error}`, input, ctx: { error } };
}

/** A task as the board lists it: its row, the tasks blocking it and how many comments it has. */
export type TaskEntry = ListedTask;

/**
 * How many of a task's comments its answer carries: the latest, oldest first (decision 1001). The spec
 * bounds a comment (5,000 characters) but not their number; `comment_count` counts them all.
 */
export const COMMENTS_SHOWN = 100;

/** A task with its latest comments (at most COMMENTS_SHOWN), oldest first. */
export interface TaskDetail extends TaskEntry {
  comments: CommentRow[];
}

/** One page of the board. */
export interface TaskPage {
  entries: TaskEntry[];
  total: number;
  limit: number;
  offset: number;
}

export function createTasksService(deps: { db: Db; repo: TasksRepository; clock: Clock; defaultRepo: string }) {
  const { db, repo, clock, defaultRepo } = deps;

  async function load(id: string, executor: DbExecutor): Promise<TaskDetail> {
    const row = await repo.find(id, executor);
    if (!row) throw taskNotFound();
    const [blockers, { comments, count }] = await Promise.all([
      repo.blockersOf([id], executor),
      repo.latestCommentsOf(id, COMMENTS_SHOWN, executor),
    ]);
    return { row, blockedBy: blockers.get(id) ?? [], commentCount: count, comments };
  }

  /** Every reference must name an existing task; all broken ones are reported together. */
  async function checkExisting(
    executor: DbExecutor,
    parent: string | null | undefined,
    blockers: readonly string[] | undefined,
  ): Promise<void> {
    const wanted = [...(parent ? [parent] : []), ...(blockers ?? [])];
    const existing = await repo.existingIds(wanted, executor);
    const issues: ValidationIssue[] = [];
    if (parent && !existing.has(parent))
      issues.push(referenceIssue(['body', 'parent_task_id'], parent, `no task with id ${parent} exists`));
    blockers?.forEach((id, index) => {
      if (!existing.has(id))
        issues.push(referenceIssue(['body', 'blocked_by', index], id, `no task with id ${id} exists`));
    });
    if (issues.length > 0) throw validationFailed(issues);
  }

  /** A task may not hang below itself, nor wait (directly or through others) on itself. */
  async function checkAcyclic(taskId: string, body: TaskUpdateBody, executor: DbExecutor): Promise<void> {
    const parent = body.parent_task_id;
    if (parent) {
      if (parent === taskId)
        throw validationFailed([referenceIssue(['body', 'parent_task_id'], parent, 'a task cannot be its own parent')]);
      if (await repo.isSelfOrAncestor(parent, taskId, executor)) {
        throw validationFailed([
          referenceIssue(
            ['body', 'parent_task_id'],
            parent,
            `task ${parent} is a descendant of this task; that would create a cycle`,
          ),
        ]);
      }
    }
    const blockers = body.blocked_by;
    if (blockers) {
      const self = blockers.indexOf(taskId);
      if (self >= 0)
        throw validationFailed([referenceIssue(['body', 'blocked_by', self], taskId, 'a task cannot block itself')]);
      if (await repo.blockerChainReaches(blockers, taskId, executor)) {
        throw validationFailed([
          referenceIssue(
            ['body', 'blocked_by'],
            blockers,
            'one of these tasks is already (transitively) blocked by this task; that would create a cycle',
          ),
        ]);
      }
    }
  }

  return {
    async create(body: TaskCreateBody, actor: Actor): Promise<TaskDetail> {
      const blockers = body.blocked_by ? [...new Set(body.blocked_by)] : [];
      const now = clock.now();
      return db.transaction(async (tx) => {
        if (body.parent_task_id || blockers.length > 0) await repo.lockGraph(tx);
        await checkExisting(tx, body.parent_task_id, body.blocked_by);
        const row = await repo.insert(
          {
            title: body.title,
            description: body.description ?? null,
            priority: body.priority ?? 'medium',
            assignee: body.assignee ?? null,
            repo: body.repo ?? defaultRepo,
            sourceType: body.source_type ?? 'human',
            sourceId: body.source_id ?? null,
            goalId: body.goal_id ?? null,
            parentTaskId: body.parent_task_id ?? null,
            createdBy: actor.id,
            createdAt: now,
            updatedAt: now,
          },
          tx,
        );
        await repo.replaceBlockers(row.id, blockers, tx);
        if (body.comment)
          await repo.insertComment({ taskId: row.id, body: body.comment, authorId: actor.id, createdAt: now }, tx);
        await audit(
          {
            actorId: actor.id,
            actorType: 'admin',
            action: 'command_center.task.create',
            targetType: 'command_center_task',
            targetId: row.id,
            details: {
              priority: row.priority,
              source_type: row.sourceType,
              blocked_by: blockers.length,
              parent_task_id: row.parentTaskId,
            },
            ip: actor.ip,
          },
          now,
          tx,
        );
        return load(row.id, tx);
      });
    },

    async update(taskId: string, body: TaskUpdateBody, actor: Actor): Promise<TaskDetail> {
      if (!isUuid(taskId)) throw taskNotFound();
      const blockers = body.blocked_by ? [...new Set(body.blocked_by)] : undefined;
      const touchesGraph = body.parent_task_id !== undefined || blockers !== undefined;
      const now = clock.now();
      return db.transaction(async (tx) => {
        if (touchesGraph) await repo.lockGraph(tx);
        const current = await repo.findForUpdate(taskId, tx);
        if (!current) throw taskNotFound();
        if (touchesGraph) {
          await checkExisting(tx, body.parent_task_id, body.blocked_by);
          await checkAcyclic(taskId, { ...body, blocked_by: blockers }, tx);
        }

        const patch: TaskPatch = {};
        const changed: string[] = [];
        const set = <K extends keyof TaskPatch>(field: string, key: K, value: TaskPatch[K] | undefined) => {
          if (value === undefined || value === current[key as keyof TaskRow]) return;
          patch[key] = value;
          changed.push(field);
        };
        set('status', 'status', body.status);
        set('assignee', 'assignee', body.assignee);
        set('priority', 'priority', body.priority);
        set('goal_id', 'goalId', body.goal_id);
        set('parent_task_id', 'parentTaskId', body.parent_task_id);
        set('result', 'result', body.result);
        if (patch.status) {
          const closed = CLOSED_STATUSES.includes(patch.status as TaskStatus);
          patch.completedAt = closed ? (current.completedAt ?? now) : null;
        }
        if (blockers) {
          const before = (await repo.blockersOf([taskId], tx)).get(taskId) ?? [];
          if (before.length !== blockers.length || before.some((id) => !blockers.includes(id))) {
            await repo.replaceBlockers(taskId, blockers, tx);
            changed.push('blocked_by');
          }
        }
        if (body.comment)
          await repo.insertComment({ taskId, body: body.comment, authorId: actor.id, createdAt: now }, tx);
        if (changed.length === 0 && !body.comment) return load(taskId, tx);

        await repo.update(taskId, { ...patch, updatedAt: now }, tx);
        await audit(
          {
            actorId: actor.id,
            actorType: 'admin',
            action: 'command_center.task.update',
            targetType: 'command_center_task',
            targetId: taskId,
            details: {
              changed,
              ...(patch.status ? { status: { from: current.status, to: patch.status } } : {}),
              comment: Boolean(body.comment),
            },
            ip: actor.ip,
          },
          now,
          tx,
        );
        return load(taskId, tx);
      });
    },

    async addComment(taskId: string, body: CommentBody, actor: Actor): Promise<CommentRow> {
      if (!isUuid(taskId)) throw taskNotFound();
      const now = clock.now();
      return db.transaction(async (tx) => {
        const task = await repo.findForUpdate(taskId, tx);
        if (!task) throw taskNotFound();
        const comment = await repo.insertComment({ taskId, body: body.body, authorId: actor.id, createdAt: now }, tx);
        await repo.update(taskId, { updatedAt: now }, tx);
        await audit(
          {
            actorId: actor.id,
            actorType: 'admin',
            action: 'command_center.task.comment',
            targetType: 'command_center_task',
            targetId: taskId,
            details: { comment_id: comment.id, length: body.body.length },
            ip: actor.ip,
          },
          now,
          tx,
        );
        return comment;
      });
    },

    async get(taskId: string): Promise<TaskDetail> {
      if (!isUuid(taskId)) throw taskNotFound();
      return load(taskId, db);
    },

    async list(query: TaskListQuery): Promise<TaskPage> {
      const { entries, total } = await repo.list({
        status: query.status,
        assignee: query.assignee,
        priority: query.priority,
        sourceType: query.source_type,
        limit: query.limit,
        offset: query.offset,
      });
      return { entries, total, limit: query.limit, offset: query.offset };
    },

    /** Number of tasks in each status; every status is present, 0 when empty. */
    async countsByStatus(): Promise<Record<string, number>> {
      const counts = await repo.countsByStatus();
      const result: Record<string, number> = Object.fromEntries(TASK_STATUSES.map((status) => [status, 0]));
      for (const [status, n] of counts) result[status] = n;
      return result;
    },
  };
}

export type TasksService = ReturnType<typeof createTasksService>;
