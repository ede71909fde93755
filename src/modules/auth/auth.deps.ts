// What the auth module uses from other modules, as narrow slices of what their index.ts return.
// app.ts passes them in; sign-in reaches accounts and sessions only through the users module's port.
import type { NotificationsModule } from '../notifications/index.ts';
import type { UsersModule } from '../users/index.ts';

export interface AuthDeps {
  users: Pick<
    UsersModule,
    'guards' | 'accounts' | 'sessions' | 'twoFactor' | 'apiTokens' | 'passkeys' | 'emailVerification'
  >;
  messages: Pick<NotificationsModule['messages'], 'mail'>;
}
