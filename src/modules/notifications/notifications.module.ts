// What the notifications module contributes to the app and the database, declared once (decision 230).
import { defineModule } from '../../platform/module.ts';
import * as notificationsTables from './notifications.tables.ts';
import { NOTIFICATIONS_OUTBOX_KINDS } from './notifications.outbox.ts';

export const NOTIFICATIONS_MODULE = defineModule({
  name: 'notifications',
  tables: [notificationsTables],
  outboxKinds: NOTIFICATIONS_OUTBOX_KINDS,
});
