import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../../../platform/auth/actor.ts';
import type { Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import {
  AgentIssue,
  AgentIssueBody,
  Issue,
  IssueCreateBody,
  IssueCreateHeaders,
  IssueList,
  IssueListQuery,
  IssueParams,
  IssuePatchBody,
  TrackerHealth,
} from '../tracker.schemas.ts';
import type { TrackerService } from '../tracker.service.ts';
import { issueListWire, trackerHealthWire } from '../tracker.wire.ts';

const tags = ['tracker'];
const upstream = [429, 502, 503, 504];
// Every operation but health acts with the server's tracker key (Linear) or on the platform's own
// issues, and filing posts to the team chat: signed-in admins only (decision 050).
const adminOnly = [401, 403];

export function trackerRoutes(deps: { service: TrackerService; guards: Guards }): FastifyPluginAsyncTypebox {
  const { service, guards } = deps;
  return async function routes(app) {
    const admin = { onRequest: guards.requireAdmin };
    app.get(
      '/api/v1/tracker/health',
      {
        schema: {
          tags,
          operationId: 'getTrackerHealth',
          summary: 'Which tracker backend answers, whether it is reachable and how fast',
          response: { 200: TrackerHealth },
        },
      },
      async () => trackerHealthWire(await service.health()),
    );

    app.get(
      '/api/v1/tracker/issues',
      {
        config: { tokenScope: 'tracker:read' },
        ...admin,
        schema: {
          security: bearerSecurity,
          tags,
          operationId: 'listIssues',
          summary: 'List issues, most recently updated first, filtered by state, assignee or label',
          querystring: IssueListQuery,
          response: { 200: IssueList, ...errorResponses(...adminOnly, ...upstream) },
        },
      },
      async (request) => issueListWire(await service.list(request.query)),
    );

    app.post(
      '/api/v1/tracker/issues',
      {
        config: { tokenScope: 'tracker:write' },
        ...admin,
        schema: {
          security: bearerSecurity,
          tags,
          operationId: 'createIssue',
          summary: 'Create an issue (state default backlog, priority default 0)',
          description:
            'An unknown team, state, label, assignee or parent is a 422 on that field. `Idempotency-Key`: the ' +
            'same key (of the same admin) answers the issue it created (200) and creates nothing; a create whose ' +
            'answer was lost can be sent again with its key without making a second issue. The same key with ' +
            'another body: 409, nothing created.',
          headers: IssueCreateHeaders,
          body: IssueCreateBody,
          response: { 200: Issue, 201: Issue, ...errorResponses(...adminOnly, 409, ...upstream) },
        },
      },
      async (request, reply) => {
        const { issue, created } = await service.create(
          request.body,
          actorOf(request),
          request.headers['idempotency-key'],
        );
        return reply.code(created ? 201 : 200).send(issue);
      },
    );

    app.post(
      '/api/v1/tracker/issues/agent',
      {
        config: { tokenScope: 'tracker:write' },
        ...admin,
        schema: {
          security: bearerSecurity,
          tags,
          operationId: 'fileAgentIssue',
          summary:
            "File an issue on an agent's behalf; an open issue of the same agent with the " +
            'same title is answered instead',
          description:
            'The issue goes to the team TRACKER_DEFAULT_TEAM_ID (the seeded team with the local tracker; 503 ' +
            'when unset with Linear), gets the labels `label_names` (created when missing) and ' +
            '`agent:<agent_type>`, and records `agent_id`. 201 with `deduplicated: false` when filed; 200 with ' +
            '`deduplicated: true` when an open issue (state type neither completed nor canceled) of this agent ' +
            'with exactly this title exists.',
          body: AgentIssueBody,
          response: { 201: AgentIssue, 200: AgentIssue, ...errorResponses(...adminOnly, ...upstream) },
        },
      },
      async (request, reply) => {
        const { issue, deduplicated } = await service.fileForAgent(request.body, actorOf(request));
        return reply.code(deduplicated ? 200 : 201).send({ ...issue, deduplicated });
      },
    );

    app.get(
      '/api/v1/tracker/issues/:issue_id',
      {
        config: { tokenScope: 'tracker:read' },
        ...admin,
        schema: {
          security: bearerSecurity,
          tags,
          operationId: 'getIssue',
          summary: 'One issue by UUID or identifier (e.g. ENG-42)',
          params: IssueParams,
          response: { 200: Issue, ...errorResponses(...adminOnly, 404, ...upstream) },
        },
      },
      async (request) => service.get(request.params.issue_id),
    );

    app.patch(
      '/api/v1/tracker/issues/:issue_id',
      {
        config: { tokenScope: 'tracker:write' },
        ...admin,
        schema: {
          security: bearerSecurity,
          tags,
          operationId: 'updateIssue',
          summary: 'Change an issue; only the fields sent change, null clears a field',
          params: IssueParams,
          body: IssuePatchBody,
          response: { 200: Issue, ...errorResponses(...adminOnly, 404, ...upstream) },
        },
      },
      async (request) => service.update(request.params.issue_id, request.body, actorOf(request)),
    );
  };
}
