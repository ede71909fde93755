import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MailerEvent, MailerHeaders } from '../webhooks.schemas.ts';
import { registerReceiver, type ReceiverDeps } from './receiver.ts';

export function mailerRoutes(deps: ReceiverDeps): FastifyPluginAsyncTypebox {
  return async function routes(app) {
    registerReceiver(app, deps, {
      provider: 'mailer',
      url: '/api/webhooks/mailer',
      operationId: 'receiveMailerEvent',
      security: ['mailerSignature', 'mailerSvixSignature'],
      summary: 'Receive a mail delivery event (Resend)',
      description:
        '`email.bounced` (unless the bounce is transient) and `email.complained` put every recipient in ' +
        '`data.to` on the suppression list, which every mail we send respects. Signed with ' +
        '`x-mailer-signature` or, as Resend does, the Svix headers (300 s tolerance).',
      headers: MailerHeaders,
      body: MailerEvent,
    });
  };
}
