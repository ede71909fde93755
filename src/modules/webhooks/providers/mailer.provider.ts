// The mail provider (Resend, signed by Svix): bounces and complaints suppress the recipients, so
// that no mail of ours goes to them again.
import { verifyHexHmac, verifyStandardWebhook } from '../signatures.ts';
import { deliveryIdOf, header, obj, str, type Json, type ProviderHandler } from './provider.ts';

/** The addresses a bounce or complaint should suppress; none for a soft (transient) bounce. */
export function addressesToSuppress(type: string, body: Json): string[] {
  if (type !== 'email.bounced' && type !== 'email.complained') return [];
  const data = obj(body.data);
  if (type === 'email.bounced' && str(obj(data.bounce).type)?.toLowerCase() === 'transient') return [];
  const to = Array.isArray(data.to) ? data.to : [data.to];
  const addresses = to.map((value) => str(value)?.trim().toLowerCase()).filter((value): value is string => Boolean(value?.includes('@')));
  return [...new Set(addresses)];
}

export const mailerHandler: ProviderHandler = {
  provider: 'mailer',
  name: 'Mailer',
  verify(delivery, secret, now) {
    const svix = {
      id: header(delivery.headers, 'svix-id', 'webhook-id'),
      timestamp: header(delivery.headers, 'svix-timestamp', 'webhook-timestamp'),
      signature: header(delivery.headers, 'svix-signature', 'webhook-signature'),
    };
    // Resend signs with Svix; the spec's own header is a plain hex HMAC of the body.
    if (svix.id || svix.timestamp || svix.signature) return verifyStandardWebhook(delivery.rawBody, svix, secret, now);
    return verifyHexHmac(delivery.rawBody, header(delivery.headers, 'x-mailer-signature'), secret);
  },
  identify: (delivery) => ({
    ...deliveryIdOf(header(delivery.headers, 'svix-id', 'webhook-id'), delivery.rawBody),
    event: str(delivery.body.type) ?? 'unknown',
  }),
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
  },
};
