import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { actorOf } from '../../../platform/auth/actor.ts';
import { currentUser, type Guards } from '../../../platform/auth/guards.ts';
import { AppError, forbidden } from '../../../platform/http/errors.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import {
  CancelAllBody,
  CancelAllResult,
  IdempotencyHeaders,
  Order,
  OrderCreateBody,
  OrderDetail,
  OrderList,
  OrderParams,
  OrdersQuery,
} from '../orders.schemas.ts';
import type { OrdersService } from '../orders.service.ts';
import { orderDetailWire, orderListWire, orderWire } from '../orders.wire.ts';

const tags = ['orders'];
const security = bearerSecurity;

export function ordersRoutes(deps: {
  service: OrdersService;
  guards: Guards;
  liveTrading: boolean;
  stepUpMaxAgeMinutes: number;
}): FastifyPluginAsyncTypebox {
  const { service, guards } = deps;

  /**
   * Live safety (docs/decisions/213): the server's switch, the owner's two-factor, and a fresh second
   * factor for a session token (an API token's `trade:write` scope took a step-up to create).
   */
  function requireLiveAuthority(request: FastifyRequest): void {
    if (!deps.liveTrading) throw forbidden('Live trading is off on this server (LIVE_TRADING is not true)');
    if (!currentUser(request).twoFactorEnabled)
      throw forbidden('Live trading needs two-factor authentication on your account; enable it first');
    try {
      // The route's requireUser let the request in: its principal is not read again (decision 440).
      guards.assertSteppedUp(request);
    } catch (error) {
      if (error instanceof AppError && error.status === 403)
        throw new AppError(
          'forbidden',
          `Live trading needs a second factor within the last ${deps.stepUpMaxAgeMinutes} minutes ` +
            '(POST /api/auth/2fa/step-up), or an API token with trade:write',
          { headers: { 'www-authenticate': 'Bearer error="insufficient_user_authentication"' } },
        );
      throw error;
    }
  }

  return async function routes(app) {
    const onRequest = guards.requireUser;

    app.post(
      '/api/orders',
      {
        onRequest,
        config: { tokenScope: 'trade:write' },
        schema: {
          tags,
          security,
          operationId: 'placeOrder',
          summary: 'Place an order (paper by default, or live)',
          description:
            'Validated first against the venue market (listed, minimum amount and notional, amount step, price ' +
            'tick): 422 naming the field, nothing sent. The order is then stored with its client order id ' +
            "(what the venue receives, e.g. Binance's newClientOrderId) and sent once; an answer that does not " +
            'come (or that the database could not store) leaves it `unknown` until a lookup by that id decides ' +
            '(never a resend). A refusal by the venue ' +
            'answers 201 with status `rejected` and its reason. `Idempotency-Key`: the same key with the same ' +
            'body answers the same order (200) and sends nothing; with another body 409. Live orders need ' +
            'LIVE_TRADING=true on the server, two-factor on, and a second factor within ' +
            'STEP_UP_MAX_AGE_MINUTES (or an API token with trade:write): otherwise 403 naming what is missing. ' +
            'Your risk limits (GET /api/trading/limits) are checked before anything is stored: 403 naming the ' +
            'limit; while your trading (or the platform) is halted: 423 with the reason.',
          headers: IdempotencyHeaders,
          body: OrderCreateBody,
          response: { 200: Order, 201: Order, ...errorResponses(401, 403, 404, 409, 423, 503) },
        },
      },
      async (request, reply) => {
        if (request.body.mode === 'live') requireLiveAuthority(request);
        const { order, created } = await service.place(
          request.body,
          actorOf(request),
          request.headers['idempotency-key'],
        );
        return reply.code(created ? 201 : 200).send(orderWire(order));
      },
    );

    app.get(
      '/api/orders',
      {
        onRequest,
        config: { tokenScope: 'trade:read' },
        schema: {
          tags,
          security,
          operationId: 'listOrders',
          summary: 'Your orders, newest first',
          querystring: OrdersQuery,
          response: { 200: OrderList, ...errorResponses(401, 403) },
        },
      },
      async (request) => {
        const q = request.query;
        return orderListWire(
          await service.list(
            {
              userId: actorOf(request).id,
              mode: q.mode,
              status: q.status,
              exchange: q.exchange,
              symbol: q.symbol,
              strategyId: q.strategy_id,
            },
            q.limit,
            q.offset ?? 0,
          ),
        );
      },
    );

    app.get(
      '/api/orders/:order_id',
      {
        onRequest,
        config: { tokenScope: 'trade:read' },
        schema: {
          tags,
          security,
          operationId: 'getOrder',
          summary: 'One of your orders, with its fills',
          params: OrderParams,
          response: { 200: OrderDetail, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => {
        const { order, fills } = await service.get(actorOf(request).id, request.params.order_id);
        return orderDetailWire(order, fills);
      },
    );

    app.delete(
      '/api/orders/:order_id',
      {
        onRequest,
        config: { tokenScope: 'trade:write' },
        schema: {
          tags,
          security,
          operationId: 'cancelOrder',
          summary: 'Cancel one of your orders',
          description:
            'Cancels at the venue (live) or in the paper engine and answers the order as it stands: `canceled`, ' +
            'or the final status it reached first (filled meanwhile). An order already final: 409.',
          params: OrderParams,
          response: { 200: Order, ...errorResponses(401, 403, 404, 409, 503) },
        },
      },
      async (request) => {
        const actor = actorOf(request);
        return orderWire(await service.cancel(actor.id, request.params.order_id, actor));
      },
    );

    app.post(
      '/api/orders/cancel-all',
      {
        onRequest,
        config: { tokenScope: 'trade:write' },
        schema: {
          tags,
          security,
          operationId: 'cancelAllOrders',
          summary: 'Cancel all your orders not final, optionally of one venue, pair or mode',
          description:
            'Asks every order, a few at a time: one whose cancel fails (or gets no answer from the venue) is ' +
            'listed in `failed` with why, and the others are still asked; once the venue has left cancels ' +
            'unanswered for twice its timeout, the orders not yet asked are listed in `failed` as not asked. ' +
            '`count` counts `canceled`.',
          body: CancelAllBody,
          response: { 200: CancelAllResult, ...errorResponses(401, 403, 503) },
        },
      },
      async (request) => {
        const actor = actorOf(request);
        const b = request.body;
        const { canceled, failed } = await service.cancelAll(
          { userId: actor.id, exchange: b.exchange, symbol: b.symbol, mode: b.mode },
          actor,
        );
        return {
          canceled: canceled.map(orderWire),
          count: canceled.length,
          failed: failed.map(({ order, detail }) => ({ order: orderWire(order), detail })),
        };
      },
    );
  };
}
