import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../../../platform/auth/actor.ts';
import type { Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import { TEST_SENDS_PER_MINUTE, type NoticesService } from '../notices.service.ts';
import type { PreferencesService } from '../preferences.service.ts';
import { Preferences, PreferencesBody, TelegramLink, TestSent } from '../preferences.schemas.ts';
import { preferencesWire, telegramLinkWire } from '../notifications.wire.ts';
import type { TelegramLinkService } from '../telegram-link.service.ts';

const tags = ['notifications'];
const url = '/api/notifications/preferences';

export function preferencesRoutes(deps: {
  preferences: PreferencesService;
  notices: NoticesService;
  telegramLinks: TelegramLinkService;
  guards: Guards;
}): FastifyPluginAsyncTypebox {
  const { preferences, notices, telegramLinks, guards } = deps;
  return async function routes(app) {
    const onRequest = guards.requireUser;

    app.get(
      url,
      {
        onRequest,
        config: { tokenScope: 'account:read' },
        schema: {
          tags,
          operationId: 'getNotificationPreferences',
          summary: 'Where and of what you are notified',
          description:
            'Your channels and events; until you change them, mail about order.rejected, signal.refused, ' +
            'trading.halted and daily_loss. A webhook URL is shown by its origin only. Mail goes only to a ' +
            'verified address: until yours is verified (POST /api/auth/email/verify-request), the email channel is ' +
            'skipped.',
          security: bearerSecurity,
          response: { 200: Preferences, ...errorResponses(401, 403) },
        },
      },
      async (request) => preferencesWire(await preferences.view(actorOf(request).id)),
    );

    app.put(
      url,
      {
        onRequest,
        config: { tokenScope: 'account:write' },
        schema: {
          tags,
          operationId: 'updateNotificationPreferences',
          summary: 'Choose where and of what you are notified',
          description:
            'Replaces your channels and events. A `telegram` chat is added through ' +
            '`POST /api/notifications/telegram/link`; here its `chat_id` keeps it (or leaving it out removes it). `webhook` needs ' +
            'an https `url` whose host resolves only to public addresses (422 otherwise), posted in Slack or ' +
            'Discord `format`. Chat ids and URLs are sealed at rest.',
          security: bearerSecurity,
          body: PreferencesBody,
          response: { 200: Preferences, ...errorResponses(401, 403) },
        },
      },
      async (request) => preferencesWire(await preferences.replace(actorOf(request).id, request.body)),
    );

    app.post(
      '/api/notifications/telegram/link',
      {
        onRequest,
        config: { tokenScope: 'account:write' },
        schema: {
          tags,
          operationId: 'linkTelegram',
          summary: 'Link a Telegram chat',
          description:
            'Answers a one-time link to the server’s bot. Open it in Telegram and press Start: the chat you do it ' +
            'in becomes one of your channels, and the bot says so there; an expired or used link gets a one-line ' +
            'answer there instead. The code works once, for 10 minutes; asking again replaces it. The bot writes ' +
            'only to chats linked so, from the link on: notices from before it (while the chat was not linked) are ' +
            'not sent to it later. 503 when the server has no bot.',
          security: bearerSecurity,
          response: { 201: TelegramLink, ...errorResponses(401, 403, 503) },
        },
      },
      async (request, reply) => reply.code(201).send(telegramLinkWire(await telegramLinks.offer(actorOf(request).id))),
    );

    app.post(
      '/api/notifications/test',
      {
        onRequest,
        config: { tokenScope: 'account:write' },
        schema: {
          tags,
          operationId: 'sendTestNotification',
          summary: 'Send a test notification',
          description:
            'Queues one test notification on each of your channels (mail only to a verified address); they are ' +
            'sent within seconds. At most ' +
            `${TEST_SENDS_PER_MINUTE} a minute per user (429 with Retry-After past it).`,
          security: bearerSecurity,
          response: { 202: TestSent, ...errorResponses(401, 403, 429) },
        },
      },
      async (request, reply) => reply.code(202).send({ queued: await notices.test(actorOf(request).id) }),
    );
  };
}
