// What the console uses from other modules, as narrow slices of what their index.ts return.
// app.ts passes them in.
import type { Guards } from '../../platform/auth/guards.ts';
import type { AuthModule } from '../auth/index.ts';
import type { JobsModule } from '../jobs/index.ts';

export interface ConsoleDeps {
  guards: Guards;
  auth: Pick<AuthModule, 'service' | 'passkeys'>;
  jobs: Pick<JobsModule, 'startRun' | 'names'>;
  /** Where the build wrote the console (dist/console by default). */
  dir?: string;
}
