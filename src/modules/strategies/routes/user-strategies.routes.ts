// The signed-in user's own strategies (docs/decisions/216): create one into paper trading, list them,
// read one. Another user's strategy is a 404, as a missing one is.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../../../platform/auth/actor.ts';
import type { Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import { PROMOTION_RULES } from '../strategies.domain.ts';
import {
  CreateStrategyBody,
  MyStrategyListQuery,
  Strategy,
  StrategyDetail,
  StrategyIdParams,
  StrategyList,
} from '../strategies.schemas.ts';
import type { UserStrategiesService } from '../user-strategies.service.ts';
import { strategyDetailWire, strategyListWire, strategyWire } from '../strategies.wire.ts';

const tags = ['strategies'];
const FIGURES =
  'Its figures come from the fills of its paper orders: `paper_trades` counts closed round trips (what one ' +
  'sell order closes of the FIFO lots its buys opened), `win_rate` the share of them with a positive net ' +
  'gain after fees, `return_pct` their summed net gain over the most capital it had in open lots at once, ' +
  '`max_drawdown_pct` the largest fall of that equity curve (docs/decisions/216). The autopilot promotes a ' +
  `paper strategy to live by them (${JSON.stringify(PROMOTION_RULES)}).`;

export function userStrategiesRoutes(deps: {
  service: UserStrategiesService;
  guards: Guards;
}): FastifyPluginAsyncTypebox {
  const { service, guards } = deps;
  return async function routes(app) {
    const onRequest = guards.requireUser;

    app.post(
      '/api/strategies',
      {
        onRequest,
        config: { tokenScope: 'trade:write' },
        schema: {
          tags,
          operationId: 'createMyStrategy',
          summary: 'Create a strategy',
          description:
            'A strategy of your own, in paper trading (`status: paper`) from now. Creating one is a move into ' +
            "paper trading: with the autopilot's promotions of your strategies, at most the platform limit " +
            '`paper_transition_per_hour` an hour; past it 429 with `Retry-After` (docs/decisions/781). ' +
            FIGURES,
          security: bearerSecurity,
          body: CreateStrategyBody,
          response: { 201: Strategy, ...errorResponses(401, 403, 429) },
        },
      },
      async (request, reply) => {
        const row = await service.create(request.body.name, actorOf(request));
        return reply.code(201).send(strategyWire(row));
      },
    );

    app.get(
      '/api/strategies',
      {
        onRequest,
        config: { tokenScope: 'trade:read' },
        schema: {
          tags,
          operationId: 'listMyStrategies',
          summary: 'List your strategies',
          description: `Your strategies, newest first. ${FIGURES}`,
          security: bearerSecurity,
          querystring: MyStrategyListQuery,
          response: { 200: StrategyList, ...errorResponses(401, 403) },
        },
      },
      async (request) => strategyListWire(await service.list(actorOf(request).id, request.query)),
    );

    app.get(
      '/api/strategies/:strategy_id',
      {
        onRequest,
        config: { tokenScope: 'trade:read' },
        schema: {
          tags,
          operationId: 'getMyStrategy',
          summary: 'Get one of your strategies',
          description:
            'One of your strategies with its 50 most recent transitions and, while in paper trading, whether it ' +
            `meets the promotion rules now. Another user's strategy is a 404. ${FIGURES}`,
          security: bearerSecurity,
          params: StrategyIdParams,
          response: { 200: StrategyDetail, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => strategyDetailWire(await service.get(request.params.strategy_id, actorOf(request).id)),
    );
  };
}
