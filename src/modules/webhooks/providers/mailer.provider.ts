// The mail provider (Resend, signed by Svix): bounces and complaints suppress the recipients, so
// that no mail of ours goes to them again.
import { hexHmacCheck, standardWebhookCheck } from '../signatures.ts';
import {
  header,
  REPLAY_WINDOW_MS,
  type Headers,
  obj,
  str,
  type Json,
  processed,
  type ProviderHandler,
} from './provider.ts';

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

export const mailerHandler: ProviderHandler = {
  provider: 'mailer',
  name: 'Mailer',
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
};
