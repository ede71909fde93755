// The risk limits' use cases (docs/decisions/218): a user's limits (own, capped, in force), their change,
// and the platform's caps. Every change is audited in its transaction.
import type { Actor } from '../../platform/auth/actor.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/database.ts';
import { validationFailed } from '../../platform/http/errors.ts';
import {
  effectiveLimits,
  FIELD_OF,
  LIMIT_KEYS,
  NO_LIMITS,
  normalDecimal,
  patchIssues,
  type Limits,
  type LimitsPatch,
} from './limits.domain.ts';
import { audit } from './trading.audit.ts';
import type { TradingRepository } from './trading.repository.ts';

export interface LimitsView {
  /** In force: the user's own, or the cap where it is tighter. */
  effective: Limits;
  /** The user's own (the platform's defaults until the user changes them). */
  own: Limits;
  caps: Limits;
}

export interface CapsView {
  caps: Limits;
  /** Every user's limits until the user changes them (TRADING_* settings). */
  defaults: Limits;
}

/** The patch as stored: decimals in plain notation without trailing zeros. */
function normalised(patch: LimitsPatch): LimitsPatch {
  const out: LimitsPatch = { ...patch };
  for (const key of ['maxOrderNotional', 'priceBandPercent', 'dailyLossLimit'] as const) {
    const value = out[key];
    if (typeof value === 'string') out[key] = normalDecimal(value);
  }
  return out;
}

/** `{field: {from, to}}` for each field whose value moved. */
function changes(before: Limits, after: Limits): Record<string, { from: unknown; to: unknown }> {
  const moved = LIMIT_KEYS.filter((key) => before[key] !== after[key]);
  return Object.fromEntries(moved.map((key) => [FIELD_OF[key], { from: before[key], to: after[key] }]));
}

export function createLimitsService(deps: { db: Db; repo: TradingRepository; defaults: Limits; clock: Clock }) {
  const { db, repo, defaults, clock } = deps;

  const caps = async (): Promise<Limits> => (await repo.caps()) ?? NO_LIMITS;

  async function view(userId: string): Promise<LimitsView> {
    const [own, capped] = await Promise.all([repo.ownLimits(userId), caps()]);
    const mine = own ?? defaults;
    return { effective: effectiveLimits(mine, capped), own: mine, caps: capped };
  }

  return {
    view,
    /** Every user's limits until the user changes them. */
    defaults,

    /** The limits the user's next order is checked against. */
    async inForce(userId: string): Promise<Limits> {
      return (await view(userId)).effective;
    },

    /** Sets the fields given (null: no limit of the user's own); a value above the platform's cap is a 422. */
    async update(userId: string, patch: LimitsPatch, actor: Actor): Promise<LimitsView> {
      const now = clock.now();
      return db.transaction(async (tx) => {
        const capped = (await repo.caps(tx)) ?? NO_LIMITS;
        const issues = patchIssues(patch, capped);
        if (issues.length > 0) throw validationFailed(issues);
        const before = (await repo.ownLimitsForUpdate(userId, tx)) ?? defaults;
        const own = await repo.saveLimits(userId, defaults, normalised(patch), now, tx);
        const changed = changes(before, own);
        if (Object.keys(changed).length > 0) {
          await audit(
            {
              actorId: actor.id,
              actorType: 'user',
              action: 'trading.limits.update',
              subjectUserId: userId,
              targetType: 'trading_limits',
              targetId: userId,
              details: { changes: changed },
              ip: actor.ip,
            },
            now,
            tx,
          );
        }
        return { effective: effectiveLimits(own, capped), own, caps: capped };
      });
    },

    async capsView(): Promise<CapsView> {
      return { caps: await caps(), defaults };
    },

    /** Sets the caps given (null: no cap); users' limits above a cap are held to it from the next order. */
    async updateCaps(patch: LimitsPatch, actor: Actor): Promise<CapsView> {
      const issues = patchIssues(patch, NO_LIMITS);
      if (issues.length > 0) throw validationFailed(issues);
      const now = clock.now();
      return db.transaction(async (tx) => {
        const before = (await repo.caps(tx)) ?? NO_LIMITS;
        const after = await repo.saveCaps(normalised(patch), now, tx);
        const changed = changes(before, after);
        if (Object.keys(changed).length > 0) {
          await audit(
            {
              actorId: actor.id,
              actorType: 'admin',
              action: 'trading.limit_caps.update',
              targetType: 'trading_platform',
              targetId: '1',
              details: { changes: changed },
              ip: actor.ip,
            },
            now,
            tx,
          );
        }
        return { caps: after, defaults };
      });
    },
  };
}

export type LimitsService = ReturnType<typeof createLimitsService>;
