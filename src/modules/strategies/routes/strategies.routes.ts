// Admin read of strategies: extra routes beyond the spec (docs/decisions/072).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import { PROMOTION_RULES } from '../strategies.domain.ts';
import { StrategyDetail, StrategyIdParams, StrategyList, StrategyListQuery } from '../strategies.schemas.ts';
import type { StrategiesService } from '../strategies.service.ts';
import { strategyDetailWire, strategyListWire } from '../strategies.wire.ts';

const tags = ['admin: strategies'];

export function strategiesRoutes(deps: { service: StrategiesService; guards: Guards }): FastifyPluginAsyncTypebox {
  const { service, guards } = deps;
  return async function routes(app) {
    const onRequest = guards.requireAdmin;

    app.get(
      '/api/admin/strategies',
      {
        onRequest,
        config: { tokenScope: 'admin:read' },
        schema: {
          tags,
          operationId: 'listStrategies',
          summary: 'List strategies',
          description:
            'Not in the contract: the strategies the autopilot job (`POST ' +
            '/api/scheduled/strategy-autopilot/evaluate`) judges, newest first, optionally filtered by status ' +
            '(`draft`, `paper`, `live`, `retired`).',
          security: bearerSecurity,
          querystring: StrategyListQuery,
          response: { 200: StrategyList, ...errorResponses(401, 403) },
        },
      },
      async (request) => strategyListWire(await service.list(request.query)),
    );

    app.get(
      '/api/admin/strategies/:strategy_id',
      {
        onRequest,
        config: { tokenScope: 'admin:read' },
        schema: {
          tags,
          operationId: 'getStrategy',
          summary: 'Get a strategy',
          description:
            'Not in the contract: one strategy with its 50 most recent transitions and, while it is in paper ' +
            `trading, whether it meets the promotion rules now (${JSON.stringify(PROMOTION_RULES)}).`,
          security: bearerSecurity,
          params: StrategyIdParams,
          response: { 200: StrategyDetail, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => strategyDetailWire(await service.get(request.params.strategy_id)),
    );
  };
}
