// What the provider-keys module contributes to the app and the database, declared once (decision 230).
import { defineModule } from '../../platform/module.ts';
import * as providerKeysTables from './provider-keys.tables.ts';
import { PROVIDER_KEYS_AUDIT_ACTIONS } from './provider-keys.audit.ts';
import { rotateApiKeysJob } from './rotate-api-keys.job.ts';

export const PROVIDER_KEYS_MODULE = defineModule({
  name: 'provider-keys',
  tables: [providerKeysTables],
  auditActions: PROVIDER_KEYS_AUDIT_ACTIONS,
  jobs: [rotateApiKeysJob],
});
