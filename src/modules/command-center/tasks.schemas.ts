import { Type, type Static } from 'typebox';
import { DateTime, Nullable, RowOffset, StringEnum, Uuid } from '../../platform/http/schemas.ts';

export const TASK_STATUSES = ['todo', 'in_progress', 'blocked', 'in_review', 'done', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
/** Statuses after which a task no longer counts as open. */
export const CLOSED_STATUSES: readonly TaskStatus[] = ['done', 'cancelled'];
export const TASK_PRIORITIES = ['critical', 'high', 'medium', 'low'] as const;
export type TaskPriority = (typeof TASK_PRIORITIES)[number];
export const SOURCE_TYPES = ['human', 'agent', 'system', 'webhook'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];
const MAX_BLOCKERS = 100;

const Title = Type.String({
  minLength: 3,
  maxLength: 200,
  description: 'Short statement of the work, 3 to 200 characters.',
});
const CommentText = (description: string) => Type.String({ minLength: 1, maxLength: 5000, description });
const Status = StringEnum(TASK_STATUSES, {
  description: 'Board column: `todo`, `in_progress`, `blocked`, `in_review`, `done` or `cancelled`.',
});
const Priority = (fallback?: 'medium') =>
  StringEnum(TASK_PRIORITIES, {
    description: '`critical`, `high`, `medium` or `low`.',
    ...(fallback ? { default: fallback } : {}),
  });
const SourceType = (fallback?: 'human') =>
  StringEnum(SOURCE_TYPES, {
    description: 'Who filed the task: `human`, `agent`, `system` or `webhook`.',
    ...(fallback ? { default: fallback } : {}),
  });
const Assignee = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'Agent id or person the task is assigned to.',
});
const GoalId = Type.String({ minLength: 1, maxLength: 200, description: 'Identifier of the goal the task serves.' });
const ParentId = Uuid('Id of the parent task; it must exist and must not be this task or one of its descendants.');
const BlockedBy = Type.Array(Uuid('Id of a task that blocks this one.'), {
  maxItems: MAX_BLOCKERS,
  description: `Ids of existing tasks that block this one (at most ${MAX_BLOCKERS}); duplicates are ignored; no cycles.`,
});

export const TaskCreateBody = Type.Object({
  title: Title,
  description: Type.Optional(Type.String({ maxLength: 20_000, description: 'Details, Markdown allowed.' })),
  priority: Type.Optional(Priority('medium')),
  assignee: Type.Optional(Assignee),
  repo: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: "Repository the work belongs to; defaults to the service's own project repository (PROJECT_REPO).",
    }),
  ),
  source_type: Type.Optional(SourceType('human')),
  source_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'Id of the filer within its source, e.g. the agent id.' }),
  ),
  goal_id: Type.Optional(GoalId),
  parent_task_id: Type.Optional(ParentId),
  blocked_by: Type.Optional(BlockedBy),
  comment: Type.Optional(CommentText('Becomes the first comment of the task.')),
});
export type TaskCreateBody = Static<typeof TaskCreateBody>;

export const TaskUpdateBody = Type.Object({
  status: Type.Optional(Status),
  assignee: Type.Optional(Nullable(Assignee)),
  priority: Type.Optional(Priority()),
  goal_id: Type.Optional(Nullable(GoalId)),
  parent_task_id: Type.Optional(Nullable(ParentId)),
  blocked_by: Type.Optional(BlockedBy),
  result: Type.Optional(
    Nullable(Type.String({ maxLength: 20_000, description: 'Outcome of the work, e.g. a summary or a link.' })),
  ),
  comment: Type.Optional(CommentText('Added as a comment of the task.')),
});
export type TaskUpdateBody = Static<typeof TaskUpdateBody>;

export const CommentBody = Type.Object({ body: CommentText('The comment, 1 to 5000 characters.') });
export type CommentBody = Static<typeof CommentBody>;

export const TaskIdParams = Type.Object({
  task_id: Type.String({ description: 'Task id (a UUID); an unknown or malformed id answers 404.' }),
});
export type TaskIdParams = Static<typeof TaskIdParams>;

export const TaskListQuery = Type.Object({
  status: Type.Optional(Status),
  assignee: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'Only tasks assigned to this agent or person.' }),
  ),
  priority: Type.Optional(Priority()),
  source_type: Type.Optional(SourceType()),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1 to 200.' }),
  offset: RowOffset('Tasks to skip.'),
});
export type TaskListQuery = Static<typeof TaskListQuery>;

export const TaskComment = Type.Object({
  id: Uuid('Comment id.'),
  task_id: Uuid('The task.'),
  body: Type.String({ description: 'Comment text.' }),
  author_id: Nullable(Uuid('User who wrote it.')),
  created_at: DateTime('When it was written.'),
});
export type TaskComment = Static<typeof TaskComment>;

const taskFields = {
  id: Uuid('Task id.'),
  title: Type.String({ description: 'Title.' }),
  description: Nullable(Type.String({ description: 'Details.' })),
  status: Type.String({ description: 'Board column; `todo` on creation.' }),
  priority: Type.String({ description: 'Priority.' }),
  assignee: Nullable(Type.String({ description: 'Assignee.' })),
  repo: Type.String({ description: 'Repository.' }),
  source_type: Type.String({ description: 'Who filed it.' }),
  source_id: Nullable(Type.String({ description: 'Id of the filer within its source.' })),
  goal_id: Nullable(Type.String({ description: 'Goal served.' })),
  parent_task_id: Nullable(Uuid('Parent task.')),
  blocked_by: Type.Array(Uuid(), { description: 'Ids of the tasks blocking this one.' }),
  result: Nullable(Type.String({ description: 'Outcome of the work.' })),
  created_by: Nullable(Uuid('Admin who created it.')),
  comment_count: Type.Integer({ description: 'Number of comments.' }),
  created_at: DateTime('Creation time.'),
  updated_at: DateTime('Last change.'),
  completed_at: Nullable(DateTime('When it reached `done` or `cancelled`; null while open.')),
};

export const TaskSummary = Type.Object(taskFields, { description: 'A task without its comments (board listing).' });
export type TaskSummary = Static<typeof TaskSummary>;

export const Task = Type.Object(
  {
    ...taskFields,
    comments: Type.Array(TaskComment, {
      description: 'The latest 100 comments, oldest first; `comment_count` counts them all.',
    }),
  },
  { description: 'A command-center task with its comments.' },
);
export type Task = Static<typeof Task>;

export const TaskList = Type.Object({
  tasks: Type.Array(TaskSummary, { description: 'Tasks, newest first.' }),
  total: Type.Integer({ description: 'Tasks matching the filters.' }),
  limit: Type.Integer({ description: 'Page size used.' }),
  offset: Type.Integer({ description: 'Offset used.' }),
});
export type TaskList = Static<typeof TaskList>;
