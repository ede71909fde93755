import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../../../platform/auth/actor.ts';
import type { Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import type { LimitsService } from '../limits.service.ts';
import { LimitsBody, LimitsRecord } from '../trading.schemas.ts';
import { limitsPatchOf, limitsWire } from '../trading.wire.ts';

const tags = ['trading'];
const url = '/api/trading/limits';

export function limitsRoutes(deps: { limits: LimitsService; guards: Guards }): FastifyPluginAsyncTypebox {
  const { limits, guards } = deps;
  return async function routes(app) {
    const onRequest = guards.requireUser;

    app.get(
      url,
      {
        onRequest,
        config: { tokenScope: 'trade:read' },
        schema: {
          tags,
          operationId: 'getTradingLimits',
          summary: 'Your risk limits',
          description:
            'The limits in force at the top level (each your own, or the platform’s cap where that is lower), ' +
            'then `own` and `caps`. Every order is checked against them before the venue is asked.',
          security: bearerSecurity,
          response: { 200: LimitsRecord, ...errorResponses(401, 403) },
        },
      },
      async (request) => limitsWire(await limits.view(actorOf(request).id)),
    );

    app.put(
      url,
      {
        onRequest,
        config: { tokenScope: 'trade:write' },
        schema: {
          tags,
          operationId: 'updateTradingLimits',
          summary: 'Change your risk limits',
          description:
            'Sets the fields given and keeps the others; null removes a limit of your own (a cap still holds). ' +
            'A value above the platform’s cap, a decimal that is not one or not above 0, or a percent above ' +
            '100 is a 422 naming the field. Audited.',
          security: bearerSecurity,
          body: LimitsBody,
          response: { 200: LimitsRecord, ...errorResponses(401, 403) },
        },
      },
      async (request) =>
        limitsWire(await limits.update(actorOf(request).id, limitsPatchOf(request.body), actorOf(request))),
    );
  };
}
