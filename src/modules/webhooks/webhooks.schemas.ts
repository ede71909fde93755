import { Type } from 'typebox';
import { DateTime, Nullable, StringEnum } from '../../platform/http/schemas.ts';
import { ROLES, TIERS } from '../users/index.ts';

const optional = (description: string) => Type.Optional(Type.String({ description }));

/** Any JSON object: the provider's own event payload, verified against the raw bytes. */
export const EventPayload = Type.Object(
  {},
  { additionalProperties: true, description: "The provider's event payload as it sends it (JSON only)." },
);

export const Ack = Type.Record(Type.String(), Type.String(), {
  description:
    '`status` is `processed` for a first delivery, `unmatched` when its effect waits for a later delivery ' +
    '(payments: a subscription change of a customer not yet linked to a user) and `duplicate` for a delivery ' +
    'id seen before (acknowledged again, nothing happens twice); also `provider`, `event` and `delivery_id`.',
});

export const CodehostHeaders = Type.Object({
  'x-codehost-event': Type.String({
    description: "Event name, e.g. `push`, `pull_request`, `ping`. GitHub's `X-GitHub-Event` is accepted in its place.",
  }),
  'x-hub-signature-256': optional('`sha256=<hex HMAC-SHA256(secret, raw body)>`.'),
  'x-codehost-delivery': optional(
    "Delivery GUID, the deduplication key (or GitHub's `X-GitHub-Delivery`); a hash of the body when absent.",
  ),
});

export const PaymentsHeaders = Type.Object({
  'payments-signature': optional(
    '`t=<unix>,v1=<hex HMAC-SHA256(secret, "t.body")>`; Stripe\'s `Stripe-Signature` is accepted too. 300 s tolerance.',
  ),
});

export const EdgeHeaders = Type.Object({
  'x-vercel-signature': optional('Hex HMAC-SHA1(secret, raw body).'),
});

export const TrackerHeaders = Type.Object({
  'tracker-signature': optional(
    "Hex HMAC-SHA256(secret, raw body); Linear's `Linear-Signature` is accepted too. The body's " +
      '`webhookTimestamp` (ms) must be within 60 s.',
  ),
  'tracker-event': optional('Entity type, e.g. `Issue`, `Comment` (or `Linear-Event`).'),
  'tracker-delivery': optional('Delivery id, the deduplication key (or `Linear-Delivery`).'),
});

export const ErrormonHeaders = Type.Object({
  'errormon-hook-signature': optional(
    "Hex HMAC-SHA256(secret, raw body); Sentry's `Sentry-Hook-Signature` is accepted too.",
  ),
  'errormon-hook-resource': optional(
    'Resource: `issue`, `event_alert`, `metric_alert`, `error`, ... (or `Sentry-Hook-Resource`).',
  ),
  'request-id': optional('Delivery id, the deduplication key.'),
});

export const DatabaseHeaders = Type.Object({
  authorization: optional('`Bearer <DATABASE_WEBHOOK_SECRET>`.'),
  'x-webhook-source': optional(
    "Source identifier, e.g. `public.profiles`; the body's schema and table win when present.",
  ),
  'x-webhook-event': optional("Event type (`INSERT`, `UPDATE`, `DELETE`); the body's `type` when absent."),
});

export const AuthHookHeaders = Type.Object({
  authorization: optional('`Bearer <AUTHPROVIDER_HOOK_SECRET>`; or sign with the Standard Webhooks headers instead.'),
  'webhook-id': optional('Standard Webhooks message id.'),
  'webhook-timestamp': optional('Standard Webhooks timestamp (unix seconds), within 300 s.'),
  'webhook-signature': optional(
    '`v1,<base64 HMAC-SHA256>` over `id.timestamp.body`, keyed with the `v1,whsec_...` secret.',
  ),
});

export const MailerHeaders = Type.Object({
  'x-mailer-signature': optional('Hex HMAC-SHA256(secret, raw body).'),
  'svix-id': optional('Svix message id (Resend), the deduplication key.'),
  'svix-timestamp': optional('Svix timestamp (unix seconds), within 300 s.'),
  'svix-signature': optional('`v1,<base64>` list; used instead of `x-mailer-signature` when present.'),
});

export const MailerEvent = Type.Object(
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

export const HookError = Type.Object(
  {
    detail: Type.Unknown({ description: 'What went wrong (the Pydantic-shaped list of items for a 422).' }),
    error: Type.Optional(
      Type.Object({
        http_code: Type.Integer({ description: 'The HTTP status, repeated as the auth provider expects.' }),
        message: Type.String({ description: 'What went wrong.' }),
      }),
    ),
  },
  { description: "Error, in our shape and in the auth provider's." },
);

export const AuthHookAnswer = Type.Object(
  {
    claims: Type.Optional(
      Type.Object(
        {
          user_role: Type.Optional(StringEnum(ROLES, { description: 'Our role of the user (`user`, `admin`).' })),
          subscription_tier: Type.Optional(StringEnum(TIERS, { description: 'Our subscription tier of the user.' })),
        },
        {
          additionalProperties: true,
          description: "The provider's claims, all kept, plus ours when the user is known to us.",
        },
      ),
    ),
  },
  { description: '`{claims}` for the custom access token hook; `{}` for the send email hook.' },
);

const ProviderHealth = Type.Object({
  secret_configured: Type.Boolean({ description: "Whether the provider's webhook secret is set." }),
  last_delivery_at: Nullable(DateTime('When the last verified delivery was received.')),
  last_error: Nullable(Type.String({ description: 'The error of the last attempt, if it failed.' })),
  unmatched: Type.Integer({
    description:
      'Deliveries stored and acknowledged whose effect is waiting (payments: subscription changes of a ' +
      'customer not yet linked to a user).',
  }),
});

export const PlatformsHealth = Type.Object({
  status: Type.String({ description: '`ok` when every provider can receive, else `degraded`.' }),
  allow_unsigned: Type.Boolean({
    description: 'Whether unsigned deliveries are accepted for providers without a secret (development only).',
  }),
  providers: Type.Record(Type.String(), ProviderHealth, {
    description: 'Per provider: codehost, payments, edge, tracker, errormon, database, authprovider.',
  }),
});

export const WebhooksHealth = Type.Record(Type.String(), Type.String(), {
  description:
    '`status` (`ok` or `unconfigured`), `service`, `mailer_secret` (`configured` or `missing`) and, after the ' +
    'first delivery, `last_delivery_at`.',
});
