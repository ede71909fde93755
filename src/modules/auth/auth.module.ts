// What the auth module contributes to the app and the database, declared once (decision 230).
import { defineModule } from '../../platform/module.ts';
import { AUTH_AUDIT_ACTIONS } from './auth.audit.ts';

export const AUTH_MODULE = defineModule({
  name: 'auth',
  auditActions: AUTH_AUDIT_ACTIONS,
});
