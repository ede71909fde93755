import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../../../platform/auth/actor.ts';
import type { Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import type { ControlsService } from '../halts.service.ts';
import type { LimitsService } from '../limits.service.ts';
import { CapsRecord, HaltBody, HaltRecord, LimitsBody, StatusRecord } from '../trading.schemas.ts';
import { capsWire, haltWire, limitsPatchOf, statusWire } from '../trading.wire.ts';

const tags = ['admin: trading'];
const base = '/api/admin/trading';

export function adminTradingRoutes(deps: {
  limits: LimitsService;
  controls: ControlsService;
  guards: Guards;
}): FastifyPluginAsyncTypebox {
  const { limits, controls, guards } = deps;
  return async function routes(app) {
    const onRequest = guards.requireAdmin;
    const security = bearerSecurity;

    app.get(
      `${base}/limits`,
      {
        onRequest,
        config: { tokenScope: 'admin:read' },
        schema: {
          tags,
          security,
          operationId: 'getTradingLimitCaps',
          summary: "The platform's caps on every user's limits",
          description: 'The caps at the top level (null: no cap), then `defaults`, the limits of users who set none.',
          response: { 200: CapsRecord, ...errorResponses(401, 403) },
        },
      },
      async () => capsWire(await limits.capsView()),
    );

    app.put(
      `${base}/limits`,
      {
        onRequest,
        config: { tokenScope: 'admin:write' },
        schema: {
          tags,
          security,
          operationId: 'updateTradingLimitCaps',
          summary: "Cap every user's limits",
          description:
            'Sets the caps given and keeps the others; null removes a cap. A user’s limit above a cap is held ' +
            'to the cap from the next order on, and a user cannot set one above it. Audited.',
          body: LimitsBody,
          response: { 200: CapsRecord, ...errorResponses(401, 403) },
        },
      },
      async (request) => capsWire(await limits.updateCaps(limitsPatchOf(request.body), actorOf(request))),
    );

    app.get(
      `${base}/status`,
      {
        onRequest,
        config: { tokenScope: 'admin:read' },
        schema: {
          tags,
          security,
          operationId: 'getPlatformTradingStatus',
          summary: "Whether the platform's trading is halted",
          description: '`halted_by` is `platform` while an admin has halted everyone; users’ own halts are not shown.',
          response: { 200: StatusRecord, ...errorResponses(401, 403) },
        },
      },
      async () => statusWire(await controls.platformStatus()),
    );

    app.post(
      `${base}/halt`,
      {
        onRequest,
        config: { tokenScope: 'admin:write' },
        schema: {
          tags,
          security,
          operationId: 'haltPlatformTrading',
          summary: "Halt every user's trading",
          description:
            'Every user’s new orders are refused until `POST /api/admin/trading/resume`; then every open order ' +
            'on the platform, paper and live, is canceled. Users cannot lift it. Halting again cancels again.',
          body: HaltBody,
          response: { 200: HaltRecord, ...errorResponses(401, 403) },
        },
      },
      async (request) => haltWire(await controls.haltPlatform(request.body.reason, actorOf(request))),
    );

    app.post(
      `${base}/resume`,
      {
        onRequest,
        config: { tokenScope: 'admin:write' },
        schema: {
          tags,
          security,
          operationId: 'resumePlatformTrading',
          summary: "Lift the platform's halt",
          description: 'Users’ own halts stay. Not halted by the platform: 409.',
          response: { 200: StatusRecord, ...errorResponses(401, 403, 409) },
        },
      },
      async (request) => statusWire(await controls.resumePlatform(actorOf(request))),
    );
  };
}
