// GET /api/paper/account and POST /api/paper/account/reset: the signed-in user's paper account.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../../../platform/auth/actor.ts';
import type { Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import { PaperAccount, PaperResetBody, tags } from '../account.schemas.ts';
import type { PaperAccountService } from '../account.service.ts';
import { accountWire } from '../paper.wire.ts';

export function paperAccountRoutes(deps: { service: PaperAccountService; guards: Guards }): FastifyPluginAsyncTypebox {
  const { service, guards } = deps;
  return async function routes(app) {
    const onRequest = guards.requireUser;

    app.get(
      '/api/paper/account',
      {
        onRequest,
        config: { tokenScope: 'trade:read' },
        schema: {
          tags,
          operationId: 'getPaperAccount',
          summary: 'Your paper account',
          description:
            'Your paper balances (free, and locked by resting limit orders) and their value in `quote` at last ' +
            'prices. The account opens with the server\'s PAPER_START_BALANCES (default `{"USDT": "10000"}`) on ' +
            "first use. Paper orders walk the venue's real order book with its fees; they never reach the " +
            "venue's private API (docs/decisions/215).",
          security: bearerSecurity,
          response: { 200: PaperAccount, ...errorResponses(401, 403) },
        },
      },
      async (request) => accountWire(await service.account(actorOf(request).id)),
    );

    app.post(
      '/api/paper/account/reset',
      {
        onRequest,
        config: { tokenScope: 'trade:write' },
        schema: {
          tags,
          operationId: 'resetPaperAccount',
          summary: 'Reset your paper account',
          description:
            'Cancels every resting paper order and sets the balances to exactly `balances` (asset code → ' +
            'non-negative decimal string). Answers the account as it is afterwards.',
          security: bearerSecurity,
          body: PaperResetBody,
          response: { 200: PaperAccount, ...errorResponses(401, 403) },
        },
      },
      async (request) => accountWire(await service.reset(request.body.balances, actorOf(request))),
    );
  };
}
