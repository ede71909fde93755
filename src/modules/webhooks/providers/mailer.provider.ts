// The mail provider (Resend, signed by Svix): bounces and complaints suppress the recipients, so
// that no mail of ours goes to them again.
import { Type } from 'typebox';
import { headerScheme } from '../../../platform/http/openapi.ts';
import { redactSecrets } from '../payload-redaction.ts';
import { defineWebhookProvider, MiB } from './declaration.ts';
import { hexHmacCheck, standardWebhookCheck } from '../signatures.ts';
import { header, REPLAY_WINDOW_MS, type Headers, obj, optionalHeader, str, type Json, processed } from './provider.ts';

/** The addresses a bounce or complaint should suppress; none for a soft (transient) bounce. */
export function addressesToSuppress(type: string, body: Json): string[] {
  if (type !== 'email.bounced' && type !== 'email.complained') return [];
  const data = obj(body.data);
  if (type === 'email.bounced' && str(obj(data.bounce).type)?.toLowerCase() === 'transient') return [];
  const to = Array.isArray(data.to) ? data.to : [data.to];
  const addresses = to
    .map((value) => str(value)?.trim().toLowerCase())
    .filter((value): value is string => Boolean(value?.includes('@')));
  return [...new Set(addresses)];
}

/** The Svix (Standard Webhooks) headers, when the delivery has any of them. */
function svixHeaders(headers: Headers) {
  const svix = {
    id: header(headers, 'svix-id', 'webhook-id'),
    timestamp: header(headers, 'svix-timestamp', 'webhook-timestamp'),
    signature: header(headers, 'svix-signature', 'webhook-signature'),
  };
  return svix.id || svix.timestamp || svix.signature ? svix : undefined;
}

/** A mail event as Resend sends it; other fields are kept as they come. */
const MailerEvent = Type.Object(
  {
    type: Type.String({ description: 'Event type, e.g. `email.bounced`, `email.complained`, `email.delivered`.' }),
    created_at: Type.String({ description: 'When the event happened, ISO 8601.' }),
    data: Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'Event data including the e-mail metadata (`email_id`, `to`, `subject`, `bounce`).',
      },
    ),
  },
  { additionalProperties: true },
);

export const mailerProvider = defineWebhookProvider({
  provider: 'mailer',
  name: 'Mailer',
  secretVariable: 'MAILER_WEBHOOK_SECRET',
  route: {
    url: '/api/webhooks/mailer',
    operationId: 'receiveMailerEvent',
    summary: 'Receive a mail delivery event (Resend)',
    description:
      '`email.bounced` (unless the bounce is transient) and `email.complained` put every recipient in ' +
      '`data.to` on the suppression list, which every mail we send respects. Signed with ' +
      '`x-mailer-signature` or, as Resend does, the Svix headers (300 s tolerance).',
    headers: Type.Object({
      'x-mailer-signature': optionalHeader('Hex HMAC-SHA256(secret, raw body).'),
      'svix-id': optionalHeader('Svix message id (Resend), the deduplication key.'),
      'svix-timestamp': optionalHeader('Svix timestamp (unix seconds), within 300 s.'),
      'svix-signature': optionalHeader('`v1,<base64>` list; used instead of `x-mailer-signature` when present.'),
    }),
    body: MailerEvent,
  },
  bodyLimit: 4 * MiB,
  security: {
    mailerSignature: headerScheme('x-mailer-signature', 'Hex HMAC-SHA256(MAILER_WEBHOOK_SECRET, raw body).'),
    mailerSvixSignature: headerScheme(
      'svix-signature',
      'Svix (Resend): `v1,<base64>` list over `svix-id.svix-timestamp.body`, with `svix-id` and ' +
        '`svix-timestamp` (within 300 s).',
    ),
  },
  redact: redactSecrets,
  signature(headers, secret) {
    // Resend signs with Svix; the spec's own header is a plain hex HMAC of the body.
    const svix = svixHeaders(headers);
    return svix ? standardWebhookCheck(svix, secret) : hexHmacCheck(header(headers, 'x-mailer-signature'), secret);
  },
  identify(delivery) {
    const event = str(delivery.body.type) ?? 'unknown';
    // Svix signs its id and time; the plain HMAC covers neither, and there is no id: the body is all.
    const svix = svixHeaders(delivery.headers);
    return svix ? { senderId: svix.id, event } : { sameBodyWindowMs: REPLAY_WINDOW_MS, event };
  },
  ports: ['suppress', 'audit'],
  async apply(context) {
    const reason = context.event === 'email.complained' ? 'complained' : 'bounced';
    for (const email of addressesToSuppress(context.event, context.body)) {
      if (!(await context.suppress(email, reason))) continue;
      await context.audit({
        action: 'mail.suppression.add',
        targetType: 'email',
        targetId: email,
        details: { reason, emailId: str(obj(context.body.data).email_id) },
      });
    }
    return processed();
  },
});
