import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../../../platform/auth/actor.ts';
import type { Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import {
  CommentBody,
  Task,
  TaskComment,
  TaskCreateBody,
  TaskIdParams,
  TaskList,
  TaskListQuery,
  TaskUpdateBody,
} from '../tasks.schemas.ts';
import type { TasksService } from '../tasks.service.ts';
import { commentWire, taskListWire, taskWire } from '../command-center.wire.ts';

const tags = ['admin: command center'];
const base = '/api/admin/command-center/tasks';

export function taskRoutes(deps: { service: TasksService; guards: Guards }): FastifyPluginAsyncTypebox {
  const { service, guards } = deps;
  return async function routes(app) {
    const common = { onRequest: guards.requireAdmin };

    app.post(
      base,
      {
        ...common,
        config: { tokenScope: 'admin:write' },
        schema: {
          tags,
          operationId: 'createTask',
          summary: 'Create a task',
          description:
            'Creates a task in status `todo`. `parent_task_id` and every `blocked_by` id must name existing tasks ' +
            '(otherwise 422 on that field); `comment` becomes the first comment; `repo` defaults to PROJECT_REPO.',
          security: bearerSecurity,
          body: TaskCreateBody,
          response: { 201: Task, ...errorResponses(401, 403) },
        },
      },
      async (request, reply) => reply.code(201).send(taskWire(await service.create(request.body, actorOf(request)))),
    );

    app.get(
      base,
      {
        ...common,
        config: { tokenScope: 'admin:read' },
        schema: {
          tags,
          operationId: 'listTasks',
          summary: 'List tasks (the board)',
          description: 'Newest first; filters combine with AND. Items carry `comment_count`, not the comments.',
          security: bearerSecurity,
          querystring: TaskListQuery,
          response: { 200: TaskList, ...errorResponses(401, 403) },
        },
      },
      async (request) => taskListWire(await service.list(request.query)),
    );

    app.get(
      `${base}/:task_id`,
      {
        ...common,
        config: { tokenScope: 'admin:read' },
        schema: {
          tags,
          operationId: 'getTask',
          summary: 'One task with its comments',
          security: bearerSecurity,
          params: TaskIdParams,
          response: { 200: Task, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => taskWire(await service.get(request.params.task_id)),
    );

    app.patch(
      `${base}/:task_id`,
      {
        ...common,
        config: { tokenScope: 'admin:write' },
        schema: {
          tags,
          operationId: 'updateTask',
          summary: 'Update a task',
          description:
            'Changes only the fields sent; `null` clears assignee, goal_id, parent_task_id or result. ' +
            '`blocked_by` replaces the blockers. A parent or blocker that would make a cycle answers ' +
            '422. `comment` is added as a comment. Reaching `done` or `cancelled` sets ' +
            '`completed_at`; reopening clears it.',
          security: bearerSecurity,
          params: TaskIdParams,
          body: TaskUpdateBody,
          response: { 200: Task, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => taskWire(await service.update(request.params.task_id, request.body, actorOf(request))),
    );

    app.post(
      `${base}/:task_id/comments`,
      {
        ...common,
        config: { tokenScope: 'admin:write' },
        schema: {
          tags,
          operationId: 'commentOnTask',
          summary: 'Comment on a task',
          security: bearerSecurity,
          params: TaskIdParams,
          body: CommentBody,
          response: { 201: TaskComment, ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) =>
        reply
          .code(201)
          .send(commentWire(await service.addComment(request.params.task_id, request.body, actorOf(request)))),
    );
  };
}
