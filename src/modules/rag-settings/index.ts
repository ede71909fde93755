import type { Platform } from '../../platform/platform.ts';
import type { RagSettingsDeps } from './rag-settings.deps.ts';
import { createRagSettingsRepository } from './rag-settings.repository.ts';
import { ragSettingsRoutes } from './routes/rag-settings.routes.ts';
import { createRagSettingsService } from './rag-settings.service.ts';

export function createRagSettingsModule(platform: Platform, deps: RagSettingsDeps) {
  const { database, clock } = platform;
  const { guards } = deps;
  const service = createRagSettingsService({ db: database.db, repo: createRagSettingsRepository(database.db), clock });
  return {
    name: 'rag-settings',
    /** `get()` answers the current settings, for collectors. */
    service,
    routes: ragSettingsRoutes({ service, guards }),
  };
}

/** What the module contributes to the app and the database (decision 230). */
export { RAG_SETTINGS_MODULE } from './rag-settings.module.ts';
