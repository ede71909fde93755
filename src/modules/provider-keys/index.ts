import type { Platform } from '../../platform/platform.ts';
import type { ProviderKeysDeps } from './provider-keys.deps.ts';
import { createHttpProviderProbe } from './adapters/provider-probe.ts';
import { createProviderKeysRepository } from './provider-keys.repository.ts';
import { providerKeyRoutes } from './routes/provider-keys.routes.ts';
import { createProviderKeysService } from './provider-keys.service.ts';
import { bindJob } from '../../platform/jobs.ts';
import { rotateApiKeysJob } from './rotate-api-keys.job.ts';

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
    service,
    routes: providerKeyRoutes({ service, guards }),
    jobs: [
      bindJob(rotateApiKeysJob, {
        providerKeys: service,
        exchangeCredentials: deps.exchangeCredentials,
        twoFactorSecrets: deps.twoFactorSecrets,
        notify: async (message, now, dedupeKey) =>
          (await deps.messages.chat(database.db, message, now, dedupeKey)) !== null,
      }),
    ],
  };
}

/** What the module contributes to the app and the database (decision 230). */
export { PROVIDER_KEYS_MODULE } from './provider-keys.module.ts';
