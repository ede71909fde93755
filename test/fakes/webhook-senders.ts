// Deliveries built and signed the way the real senders build and sign them (GitHub, Stripe, Vercel,
// Linear, Sentry, Svix/Resend, Supabase), written from their documentation and independently of
// the service's own verification code, so a test passes only if both sides agree on the protocol.
import { createHmac, randomUUID } from 'node:crypto';

export interface SignedDelivery {
  headers: Record<string, string>;
  /** The exact bytes sent: what was signed. */
  body: string;
}

const hex = (algorithm: 'sha1' | 'sha256', key: string | Buffer, content: string) =>
  createHmac(algorithm, key).update(content, 'utf8').digest('hex');

/** GitHub: compact JSON, `X-Hub-Signature-256` (and the legacy SHA-1 one), event and delivery GUID. */
export function githubDelivery(
  secret: string,
  event: string,
  payload: unknown,
  options: { deliveryId?: string; specNames?: boolean } = {},
): SignedDelivery {
  const body = JSON.stringify(payload);
  const deliveryId = options.deliveryId ?? randomUUID();
  const names = options.specNames
    ? { event: 'x-codehost-event', delivery: 'x-codehost-delivery' }
    : { event: 'x-github-event', delivery: 'x-github-delivery' };
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/044aadd',
      [names.event]: event,
      [names.delivery]: deliveryId,
      'x-github-hook-id': '292430182',
      'x-hub-signature': `sha1=${hex('sha1', secret, body)}`,
      'x-hub-signature-256': `sha256=${hex('sha256', secret, body)}`,
    },
  };
}

/** A Stripe event envelope around an API object. */
export function stripeEvent(
  type: string,
  object: Record<string, unknown>,
  options: { id?: string; created?: number; previous?: Record<string, unknown> } = {},
) {
  return {
    id: options.id ?? `evt_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
    object: 'event',
    api_version: '2025-03-31.basil',
    created: options.created ?? 1748779200,
    data: { object, ...(options.previous ? { previous_attributes: options.previous } : {}) },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}

/**
 * Stripe: `Stripe-Signature: t=<unix>,v1=<hex>` with HMAC-SHA256 keyed by the whsec_ string as-is
 * over `${t}.${body}`. In test mode Stripe adds a `v0` signature made with a test secret.
 */
export function stripeDelivery(
  secret: string,
  event: unknown,
  options: { timestamp: number; specHeader?: boolean; extraV1?: string[] },
): SignedDelivery {
  const body = JSON.stringify(event, null, 2);
  const t = options.timestamp;
  const parts = [
    `t=${t}`,
    ...(options.extraV1 ?? []).map((s) => `v1=${s}`),
    `v1=${hex('sha256', secret, `${t}.${body}`)}`,
  ];
  parts.push(`v0=${hex('sha256', 'whsec_test_mode_secret', `${t}.${body}`)}`);
  return {
    body,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
      [options.specHeader ? 'payments-signature' : 'stripe-signature']: parts.join(','),
    },
  };
}

/** Vercel: `x-vercel-signature` = hex HMAC-SHA1 of the body. */
export function vercelDelivery(secret: string, payload: unknown): SignedDelivery {
  const body = JSON.stringify(payload);
  return { body, headers: { 'content-type': 'application/json', 'x-vercel-signature': hex('sha1', secret, body) } };
}

/**
 * Linear: `Linear-Signature` hex HMAC-SHA256, `Linear-Event`, `Linear-Delivery`; the body
 * carries webhookTimestamp (ms).
 */
export function linearDelivery(
  secret: string,
  payload: { type: string; webhookTimestamp?: number } & Record<string, unknown>,
  options: { deliveryId?: string; specNames?: boolean } = {},
): SignedDelivery {
  const body = JSON.stringify(payload);
  const prefix = options.specNames ? 'tracker' : 'linear';
  return {
    body,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'Linear-Webhook',
      [`${prefix}-signature`]: hex('sha256', secret, body),
      [`${prefix}-event`]: payload.type,
      [`${prefix}-delivery`]: options.deliveryId ?? randomUUID(),
    },
  };
}

/**
 * Sentry integration platform: compact JSON, `Sentry-Hook-Signature` hex HMAC-SHA256, resource, timestamp, Request-ID.
 */
export function sentryDelivery(
  secret: string,
  resource: string,
  payload: unknown,
  options: { requestId?: string; timestamp: number; specNames?: boolean },
): SignedDelivery {
  const body = JSON.stringify(payload);
  const prefix = options.specNames ? 'errormon' : 'sentry';
  return {
    body,
    headers: {
      'content-type': 'application/json',
      [`${prefix}-hook-resource`]: resource,
      [`${prefix}-hook-timestamp`]: String(options.timestamp),
      [`${prefix}-hook-signature`]: hex('sha256', secret, body),
      'request-id': options.requestId ?? randomUUID(),
    },
  };
}

/** Standard Webhooks signature as Svix computes it: base64 HMAC-SHA256 over `id.timestamp.body`. */
function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^v1,/, '').replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** Resend (Svix): `svix-id`, `svix-timestamp` (unix s), `svix-signature: v1,<b64>`. */
export function svixDelivery(
  secret: string,
  payload: unknown,
  options: { timestamp: number; id?: string },
): SignedDelivery {
  const body = JSON.stringify(payload);
  const id = options.id ?? `msg_${randomUUID().replace(/-/g, '')}`;
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'svix-id': id,
      'svix-timestamp': String(options.timestamp),
      'svix-signature': standardSignature(secret, id, options.timestamp, body),
    },
  };
}

/** Supabase Auth HTTP hooks: Standard Webhooks headers, secret shown as `v1,whsec_<b64>`. */
export function supabaseHookDelivery(
  secret: string,
  payload: unknown,
  options: { timestamp: number; id?: string },
): SignedDelivery {
  const body = JSON.stringify(payload);
  const id = options.id ?? `msg_${randomUUID().replace(/-/g, '')}`;
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(options.timestamp),
      'webhook-signature': standardSignature(secret, id, options.timestamp, body),
    },
  };
}

/** A sender authenticated by a shared bearer secret (Supabase database webhooks, the auth hook's bearer form). */
export function bearerDelivery(
  secret: string,
  payload: unknown,
  extraHeaders: Record<string, string> = {},
): SignedDelivery {
  return {
    body: JSON.stringify(payload),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}`, ...extraHeaders },
  };
}

/** The spec's own mailer header: `x-mailer-signature` = hex HMAC-SHA256 of the body, keyed with the secret string. */
export function mailerSpecDelivery(secret: string, payload: unknown): SignedDelivery {
  const body = JSON.stringify(payload);
  return { body, headers: { 'content-type': 'application/json', 'x-mailer-signature': hex('sha256', secret, body) } };
}
