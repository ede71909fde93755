// The per-hour platform limits: one stored row, the defaults until an admin changes one.
import { audit } from './admin.audit.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/database.ts';
import type { LimitValues, PlatformLimitsRepository } from './platform-limits.repository.ts';
import { LIMIT_NAMES, type PlatformLimitsPatch } from './platform-limits.schemas.ts';
import { actorTypeOf, type AdminActor } from './admin.domain.ts';

export function createPlatformLimitsService(deps: { db: Db; repo: PlatformLimitsRepository; clock: Clock }) {
  const { db, repo, clock } = deps;

  return {
    /** The limits in force, for the modules that enforce them (e.g. jobs: paper_transition_per_hour). */
    current: (): Promise<LimitValues> => repo.read(),

    get: (): Promise<LimitValues> => repo.read(),

    async update(patch: PlatformLimitsPatch, actor: AdminActor): Promise<LimitValues> {
      const now = clock.now();
      return db.transaction(async (tx) => {
        const current = await repo.readForUpdate(tx);
        const next = { ...current };
        const changes: Record<string, { from: number; to: number }> = {};
        for (const name of LIMIT_NAMES) {
          const value = patch[name];
          if (value === undefined || value === current[name]) continue;
          next[name] = value;
          changes[name] = { from: current[name], to: value };
        }
        if (Object.keys(changes).length === 0) return current;
        await repo.write(next, now, actor.id, tx);
        await audit(
          {
            actorId: actor.id,
            actorType: actorTypeOf(actor),
            action: 'admin.platform_limits.update',
            targetType: 'platform_limits',
            targetId: '1',
            details: { changes },
            ip: actor.ip,
          },
          now,
          tx,
        );
        return next;
      });
    },
  };
}

export type PlatformLimitsService = ReturnType<typeof createPlatformLimitsService>;
