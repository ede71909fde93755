// The inbound webhook providers and the variable holding each one's secret (DESIGN §5, §6).
export const WEBHOOK_PROVIDERS = [
  'codehost',
  'payments',
  'edge',
  'tracker',
  'errormon',
  'database',
  'authprovider',
  'mailer',
] as const;
export type WebhookProvider = (typeof WEBHOOK_PROVIDERS)[number];

export const WEBHOOK_SECRET_VARS: Record<WebhookProvider, string> = {
  codehost: 'CODEHOST_WEBHOOK_SECRET',
  payments: 'PAYMENTS_WEBHOOK_SECRET',
  edge: 'EDGE_WEBHOOK_SECRET',
  tracker: 'TRACKER_WEBHOOK_SECRET',
  errormon: 'ERRORMON_WEBHOOK_SECRET',
  database: 'DATABASE_WEBHOOK_SECRET',
  authprovider: 'AUTHPROVIDER_HOOK_SECRET',
  mailer: 'MAILER_WEBHOOK_SECRET',
};
