import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { tags } from '../common.schemas.ts';
import { StatusResponse } from '../status.schemas.ts';
import type { StatusService } from '../status.service.ts';
import { statusWire } from '../market.wire.ts';

export function statusRoutes(deps: { service: StatusService }): FastifyPluginAsyncTypebox {
  const { service } = deps;
  return async function routes(app) {
    app.get(
      '/api/v1/market/status',
      {
        schema: {
          tags,
          operationId: 'getMarketStatus',
          summary: 'Health of the market data sources',
          description:
            'Upstream health and request-weight budget, breaker state, cache ages, and whether prices ' +
            'come from the live stream or the REST fallback. Answers from state held by this ' +
            'instance; never calls an upstream.',
          response: { 200: StatusResponse },
        },
      },
      async () => statusWire(service.status()),
    );
  };
}
