import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Guards } from '../../../platform/auth/guards.ts';
import { sendJsonText } from '../../../platform/http/json-text.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import {
  AgentActivityCreateBody,
  AgentActivityEvent,
  AgentActivityFeed,
  AgentActivityQuery,
  IntelCreateBody,
  IntelEvent,
  IntelFeed,
  IntelQuery,
} from '../feeds.schemas.ts';
import type { AgentsService, IntelService } from '../feeds.service.ts';
import { actorOf } from '../../../platform/auth/actor.ts';
import { activityEventWire, activityFeedJson, intelEventWire, intelFeedJson } from '../command-center.wire.ts';

const tags = ['admin: command center'];

export function feedRoutes(deps: {
  intel: IntelService;
  agents: AgentsService;
  guards: Guards;
}): FastifyPluginAsyncTypebox {
  const { intel, agents, guards } = deps;
  return async function routes(app) {
    const common = { onRequest: guards.requireAdmin };

    app.get(
      '/api/admin/command-center/intel',
      {
        config: { tokenScope: 'admin:read' },
        ...common,
        schema: {
          tags,
          operationId: 'listIntelEvents',
          summary: 'Market intel feed with per-source precision',
          description:
            'Events newest first. `summary` counts, per source, every event matching the filters: `scored` ' +
            'have an `outcome_pct`, `correct` moved the way their direction said (bullish/long/up positive, ' +
            'bearish/short/down negative), `precision` = correct / scored (0 when none scored).',
          security: bearerSecurity,
          querystring: IntelQuery,
          response: { 200: IntelFeed, ...errorResponses(401, 403) },
        },
      },
      async (request, reply) => sendJsonText(reply, intelFeedJson(await intel.feed(request.query))),
    );

    app.post(
      '/api/admin/command-center/intel',
      {
        config: { tokenScope: 'admin:write' },
        ...common,
        schema: {
          tags,
          operationId: 'recordIntelEvent',
          summary: 'Record a market intel event',
          description: 'Ingest for agents and collectors. `outcome_pct` is filled later by the scoring job.',
          security: bearerSecurity,
          body: IntelCreateBody,
          response: { 201: IntelEvent, ...errorResponses(401, 403) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(intelEventWire(await intel.ingest(request.body, actorOf(request)))),
    );

    app.get(
      '/api/admin/command-center/agent-activity',
      {
        config: { tokenScope: 'admin:read' },
        ...common,
        schema: {
          tags,
          operationId: 'listAgentActivity',
          summary: 'Agent activity within the last hours',
          security: bearerSecurity,
          querystring: AgentActivityQuery,
          response: { 200: AgentActivityFeed, ...errorResponses(401, 403) },
        },
      },
      async (request, reply) => sendJsonText(reply, activityFeedJson(await agents.feedAsJson(request.query))),
    );

    app.post(
      '/api/admin/command-center/agent-activity',
      {
        config: { tokenScope: 'admin:write' },
        ...common,
        schema: {
          tags,
          operationId: 'recordAgentActivity',
          summary: 'Record an agent activity event',
          security: bearerSecurity,
          body: AgentActivityCreateBody,
          response: { 201: AgentActivityEvent, ...errorResponses(401, 403) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(activityEventWire(await agents.record(request.body, actorOf(request)))),
    );
  };
}
