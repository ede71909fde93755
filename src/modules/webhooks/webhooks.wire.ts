// The webhooks module's health answers on the wire: the service returns each provider's readiness
// and last delivery, and the health routes answer them through these mappers, each typed by its
// response schema. The answers to a delivery are the sender's protocol, built by its provider.
import type { Static } from 'typebox';
import { iso } from '../../platform/http/schemas.ts';
import type { PlatformsHealth, WebhooksHealth } from './webhooks.schemas.ts';
import type { MailerReadiness, PlatformsReadiness } from './webhooks.service.ts';

export function platformsHealthWire(readiness: PlatformsReadiness): Static<typeof PlatformsHealth> {
  return {
    status: readiness.ready ? 'ok' : 'degraded',
    allow_unsigned: readiness.allowUnsigned,
    providers: Object.fromEntries(
      readiness.providers.map((p) => [
        p.provider,
        {
          secret_configured: p.secretConfigured,
          last_delivery_at: iso(p.lastDeliveryAt),
          last_error: p.lastError,
          last_refused_at: iso(p.lastRefusedAt),
          last_refusal: p.lastRefusal,
          unmatched: p.unmatched,
        },
      ]),
    ),
  };
}

/** The contract's string map; `last_delivery_at` only after the first delivery. */
export function mailerHealthWire(readiness: MailerReadiness): Static<typeof WebhooksHealth> {
  const health: Record<string, string> = {
    status: readiness.secretConfigured || readiness.allowUnsigned ? 'ok' : 'unconfigured',
    service: 'webhooks',
    mailer_secret: readiness.secretConfigured ? 'configured' : 'missing',
  };
  if (readiness.lastDeliveryAt) health.last_delivery_at = readiness.lastDeliveryAt.toISOString();
  return health;
}
