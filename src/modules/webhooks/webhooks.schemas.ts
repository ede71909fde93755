import { Type } from 'typebox';
import { DateTime, Nullable } from '../../platform/http/schemas.ts';

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

const ProviderHealth = Type.Object({
  secret_configured: Type.Boolean({ description: "Whether the provider's webhook secret is set." }),
  last_delivery_at: Nullable(DateTime('When the last verified delivery was received.')),
  last_error: Nullable(
    Type.String({ description: 'The error of the last attempt to process a verified delivery, if it failed.' }),
  ),
  last_refused_at: Nullable(
    DateTime(
      'When a delivery was last refused for its signature (anyone can send one, so it is no error of the ' +
        "provider's; recorded at most once a minute, kept 7 days).",
    ),
  ),
  last_refusal: Nullable(Type.String({ description: 'Why that delivery was refused, as its 401 said.' })),
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
