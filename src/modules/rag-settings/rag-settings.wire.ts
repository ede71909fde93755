// The retrieval settings on the wire: the service returns the stored row, and the routes answer it
// through this mapper, typed by the response schema.
import { iso } from '../../platform/http/schemas.ts';
import type { RagSettingsRow } from './rag-settings.repository.ts';
import type { RagSettings } from './rag-settings.schemas.ts';

export function ragSettingsWire(row: RagSettingsRow): RagSettings {
  return {
    id: row.id,
    enabled_sources: row.enabledSources,
    collection_limits: row.collectionLimits,
    collection_interval_minutes: row.collectionIntervalMinutes,
    auto_expiration_days: row.autoExpirationDays,
    max_posts_per_run: row.maxPostsPerRun,
    version: row.version,
    created_at: iso(row.createdAt)!,
    updated_at: iso(row.updatedAt)!,
    updated_by: row.updatedBy,
  };
}
