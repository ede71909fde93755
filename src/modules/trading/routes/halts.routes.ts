import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../../../platform/auth/actor.ts';
import type { Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import type { ControlsService } from '../halts.service.ts';
import { HaltBody, HaltRecord, StatusRecord } from '../trading.schemas.ts';
import { haltWire, statusWire } from '../trading.wire.ts';

const tags = ['trading'];

export function haltsRoutes(deps: { controls: ControlsService; guards: Guards }): FastifyPluginAsyncTypebox {
  const { controls, guards } = deps;
  return async function routes(app) {
    const onRequest = guards.requireUser;

    app.get(
      '/api/trading/status',
      {
        onRequest,
        config: { tokenScope: 'trade:read' },
        schema: {
          tags,
          operationId: 'getTradingStatus',
          summary: 'Whether your trading is halted',
          description:
            'Halted by the platform (an admin) or by you (or your daily loss limit); while halted, new orders are refused.',
          security: bearerSecurity,
          response: { 200: StatusRecord, ...errorResponses(401, 403) },
        },
      },
      async (request) => statusWire(await controls.status(actorOf(request).id)),
    );

    app.post(
      '/api/trading/halt',
      {
        onRequest,
        config: { tokenScope: 'trade:write' },
        schema: {
          tags,
          operationId: 'haltTrading',
          summary: 'Halt your trading (kill switch)',
          description:
            'New orders are refused from now until `POST /api/trading/resume`; then every open order of yours, ' +
            'paper and live, is canceled (at the venue for live ones). Halting again while halted keeps the ' +
            'first reason and cancels again. Answers the status and how many orders were canceled.',
          security: bearerSecurity,
          body: HaltBody,
          response: { 200: HaltRecord, ...errorResponses(401, 403) },
        },
      },
      async (request) => haltWire(await controls.halt(actorOf(request).id, request.body.reason, actorOf(request))),
    );

    app.post(
      '/api/trading/resume',
      {
        onRequest,
        config: { tokenScope: 'trade:write' },
        schema: {
          tags,
          operationId: 'resumeTrading',
          summary: 'Lift your halt',
          description:
            'Lifts your own halt. Not halted: 409. Halted by the daily loss limit: 409 until the next 00:00 UTC, ' +
            'when it ends by itself. Halted only by the platform: 403 (an admin resumes it).',
          security: bearerSecurity,
          response: { 200: StatusRecord, ...errorResponses(401, 403, 409) },
        },
      },
      async (request) => statusWire(await controls.resume(actorOf(request).id, actorOf(request))),
    );
  };
}
