import type { Platform } from '../../platform/platform.ts';
import type { ProviderKeysDeps } from './provider-keys.deps.ts';
import { createHttpProviderProbe } from './adapters/provider-probe.ts';
import { createProviderKeysRepository } from './provider-keys.repository.ts';
import { providerKeyRoutes } from './routes/provider-keys.routes.ts';
import { createProviderKeysService } from './provider-keys.service.ts';

export function createProviderKeysModule(platform: Platform, deps: ProviderKeysDeps) {
  const { config, database, secretBox, clock, logger } = platform;
  const { guards } = deps;
  const probe = createHttpProviderProbe({
    fetch: platform.fetch,
    apiUrls: config.providers.apiUrls,
    timeoutMs: config.providers.testTimeoutMs,
  });
  const service = createProviderKeysService({
    db: database.db,
    repo: createProviderKeysRepository(database.db),
    secretBox,
    probe,
    clock,
    logger,
  });
  return {
    name: 'provider-keys',
    /** `reencryptAll()` for the key-rotation job; `rotationReminders(now?, withinDays?)` for reminders. */
    service,
    routes: providerKeyRoutes({ service, guards }),
  };
}
