// What the webhooks module contributes to the app and the database, declared once (decision 230).
import { defineModule } from '../../platform/module.ts';
import * as webhooksTables from './webhooks.tables.ts';
import { WEBHOOKS_AUDIT_ACTIONS } from './webhooks.audit.ts';
import { WEBHOOKS_EVENTS } from './webhooks.events.ts';
import { PAYMENTS_REVENUE, WEBHOOK_DELIVERY_COUNTS, WEBHOOK_DELIVERY_HOURS } from './webhooks.figures.ts';

export const WEBHOOKS_MODULE = defineModule({
  name: 'webhooks',
  tables: [webhooksTables],
  auditActions: WEBHOOKS_AUDIT_ACTIONS,
  events: WEBHOOKS_EVENTS,
  figures: [PAYMENTS_REVENUE, WEBHOOK_DELIVERY_COUNTS, WEBHOOK_DELIVERY_HOURS],
});
