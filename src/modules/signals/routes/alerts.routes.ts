// The TradingView alert receiver: no Authorization header (TradingView sends none), the secret is in the
// body. The body is read as text whatever its type (TradingView sends `application/json` when the
// message parses as JSON, `text/plain` otherwise) and bounded at 16 KiB; the service reads both forms.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Detail, errorResponses } from '../../../platform/http/schemas.ts';
import { ALERT_BODY_LIMIT } from '../alerts.domain.ts';
import type { AlertsService } from '../alerts.service.ts';
import { AlertAccepted } from '../signals.schemas.ts';

export function alertsRoutes(deps: { alerts: AlertsService }): FastifyPluginAsyncTypebox {
  const { alerts } = deps;
  return async function routes(app) {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: ALERT_BODY_LIMIT }, (_request, body, done) =>
      done(null, body),
    );

    app.post(
      '/api/signals/tradingview/:hook_id',
      {
        bodyLimit: ALERT_BODY_LIMIT,
        // The per-address throttle runs before the body is read, so that an oversized body (413, counted
        // on its hook) is throttled as every other alert is: past the limit, 429 and nothing written.
        preParsing: async (request) => {
          await alerts.admit(request.ip);
        },
        // A body over the limit is refused before the handler runs; it still counts on its hook.
        onError: async (request, _reply, error) => {
          if ((error as { statusCode?: number }).statusCode === 413)
            await alerts.oversized((request.params as { hook_id: string }).hook_id).catch(() => {});
        },
        schema: {
          tags: ['signals'],
          operationId: 'receiveTradingViewAlert',
          summary: 'A TradingView alert (webhook)',
          description:
            'No Authorization header: the hook\'s secret is in the body. JSON `{"secret", "symbol", "action" | ' +
            '"side", "type", "amount" | "amount_quote" | "percent", "price", "id", "time"}` or `text/plain` ' +
            'lines `KEY=value` (SECRET, SYMBOL, SIGNAL, ORDER_TYPE, VOLUME — an amount or `10%` —, PRICE, ID). ' +
            '202 with the order it made, through the same path as POST /api/orders; the same alert again ' +
            '(same `id`, and `time` when given) makes no second order: 200 with the first one’s id; 409 while the ' +
            'first is still being placed (past the order step’s bound a copy left without its order is taken ' +
            'over, through the same order key: 202 if that places it, 200 with the order if it was made). 401 wrong ' +
            'secret or unknown hook, 413 over 16 KiB, 422 unreadable, unknown action or stale `time`, 429 ' +
            'throttled per address (first, before the body is read: a body over 16 KiB past that limit is 429 ' +
            'too; not for the addresses many users’ alerts come from, TradingView’s), per hook and per owner ' +
            'over all of their hooks (only alerts with the right secret count), and per address for refused ' +
            'alerts (wrong secret or unreadable, on a counter of their own); 403 when the hook owner’s account is suspended or ' +
            'deleted; the order path’s own refusals (422 limits, 423 halted, 403 ' +
            'live safety, 503 trading not available) as that route answers them.',
          security: [],
          params: Type.Object({ hook_id: Type.String({ maxLength: 64, description: 'The hook, from its URL.' }) }),
          response: {
            200: AlertAccepted,
            202: AlertAccepted,
            ...errorResponses(401, 403, 409, 413, 423, 429, 503),
            404: Detail,
          },
        },
      },
      async (request, reply) => {
        const body = typeof request.body === 'string' ? request.body : '';
        const answer = await alerts.receive(request.params.hook_id, body, request.ip);
        return reply.code(answer.status).send({ accepted: true, order_id: answer.orderId });
      },
    );
  };
}
