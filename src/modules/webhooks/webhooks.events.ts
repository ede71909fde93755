// The account-stream event the webhooks module publishes for each verified delivery, with the schema
// of its data, declared here once; its module's declaration lists it.
import { Type } from 'typebox';
import { defineStreamEvent } from '../../platform/stream-events.ts';

const webhookReceived = defineStreamEvent({
  type: 'webhook.received',
  audience: 'admins',
  title: 'WebhookReceivedData',
  description: 'Admins only: an inbound webhook delivery was verified and stored.',
  data: Type.Object({
    provider: Type.String({
      description: 'codehost, payments, edge, tracker, errormon, database, authprovider or mailer.',
    }),
    event: Type.String({ description: "The provider's event name." }),
    delivery_id: Type.String(),
    status: Type.String({
      description: 'What became of it: `processed`, `duplicate`, `unmatched`, `superseded`, `failed`, ...',
    }),
  }),
});

export const WEBHOOKS_EVENTS = [webhookReceived] as const;
