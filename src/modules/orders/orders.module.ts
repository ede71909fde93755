// What the orders module contributes to the app and the database, declared once (decision 230).
import { defineModule } from '../../platform/module.ts';
import * as ordersTables from './orders.tables.ts';
import { ORDERS_AUDIT_ACTIONS } from './orders.audit.ts';
import { ORDERS_EVENTS } from './orders.events.ts';
import { reconcileOrdersJob } from './reconcile-orders.job.ts';

export const ORDERS_MODULE = defineModule({
  name: 'orders',
  tables: [ordersTables],
  auditActions: ORDERS_AUDIT_ACTIONS,
  events: ORDERS_EVENTS,
  jobs: [reconcileOrdersJob],
});
