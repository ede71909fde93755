import { audit } from './rag-settings.audit.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/database.ts';
import { conflict, invalidField } from '../../platform/http/errors.ts';
import type { RagSettingsChange, RagSettingsRepository, RagSettingsRow } from './rag-settings.repository.ts';
import { DEFAULT_SETTINGS, MAX_SOURCES, type RagSettingsUpdate } from './rag-settings.schemas.ts';

const DEFAULT_VALUES = {
  enabledSources: { ...DEFAULT_SETTINGS.enabled_sources },
  collectionLimits: { ...DEFAULT_SETTINGS.collection_limits },
  collectionIntervalMinutes: DEFAULT_SETTINGS.collection_interval_minutes,
  autoExpirationDays: DEFAULT_SETTINGS.auto_expiration_days,
  maxPostsPerRun: DEFAULT_SETTINGS.max_posts_per_run,
};

const stale = (current: number) =>
  conflict(`The retrieval settings were changed meanwhile (current version ${current}); reload them and retry`);

/**
 * Why a change the repository did not apply was refused: a map that would hold more than MAX_SOURCES
 * names once merged (Pydantic's `too_long` for a dictionary, decision 992), else a stale version.
 */
function refusal(body: RagSettingsUpdate, current: RagSettingsRow) {
  const maps = [
    ['enabled_sources', body.enabled_sources, current.enabledSources],
    ['collection_limits', body.collection_limits, current.collectionLimits],
  ] as const;
  for (const [field, added, stored] of maps) {
    const size = added ? Object.keys({ ...stored, ...added }).length : 0;
    if (size > MAX_SOURCES) {
      return invalidField(
        ['body', field],
        `Dictionary should have at most ${MAX_SOURCES} items after validation, not ${size}`,
        added,
        'too_long',
        { field_type: 'Dictionary', max_length: MAX_SOURCES, actual_length: size },
      );
    }
  }
  return stale(current.version);
}

export function createRagSettingsService(deps: { db: Db; repo: RagSettingsRepository; clock: Clock }) {
  const { db, repo, clock } = deps;

  return {
    /** The stored settings, created with the defaults on first read. */
    async get(): Promise<RagSettingsRow> {
      return repo.ensure(DEFAULT_VALUES, clock.now());
    },

    async update(body: RagSettingsUpdate, actor: { id: string; ip?: string }): Promise<RagSettingsRow> {
      const now = clock.now();
      const change: RagSettingsChange = {
        enabledSources: body.enabled_sources,
        collectionLimits: body.collection_limits,
        collectionIntervalMinutes: body.collection_interval_minutes,
        autoExpirationDays: body.auto_expiration_days,
        maxPostsPerRun: body.max_posts_per_run,
      };
      const changed = Object.entries(body)
        .filter(([key, value]) => key !== 'version' && value !== undefined)
        .map(([key]) => key);

      await repo.ensure(DEFAULT_VALUES, now);
      if (changed.length === 0) {
        // Nothing to change: answer what is stored, but still tell a stale client so.
        const current = (await repo.find())!;
        if (body.version !== undefined && body.version !== current.version) throw stale(current.version);
        return current;
      }
      return db.transaction(async (tx) => {
        const row = await repo.apply(change, body.version, actor.id, now, tx);
        if (!row) throw refusal(body, (await repo.find(tx))!);
        await audit(
          {
            actorId: actor.id,
            actorType: 'admin',
            action: 'rag_settings.update',
            targetType: 'rag_settings',
            targetId: row.id,
            details: { changed, version: row.version, based_on: body.version ?? null },
            ip: actor.ip,
          },
          now,
          tx,
        );
        return row;
      });
    },
  };
}

export type RagSettingsService = ReturnType<typeof createRagSettingsService>;
