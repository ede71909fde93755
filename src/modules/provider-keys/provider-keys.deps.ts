// What the provider-keys module uses from outside it: the bearer guards of its routes, and for its
// rotate-api-keys job the other stored secrets it re-encrypts and the chat its reminders go to. app.ts
// passes them in.
import type { Guards } from '../../platform/auth/guards.ts';
import type { NotificationsModule } from '../notifications/index.ts';
import type { RotateApiKeysDeps } from './rotate-api-keys.job.ts';

export interface ProviderKeysDeps {
  guards: Guards;
  exchangeCredentials: RotateApiKeysDeps['exchangeCredentials'];
  twoFactorSecrets: RotateApiKeysDeps['twoFactorSecrets'];
  messages: Pick<NotificationsModule['messages'], 'chat'>;
}
