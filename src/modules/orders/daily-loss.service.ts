// The day's realized loss reported to the risk controls after each fill (decisions 214, 461): past the
// user's daily loss limit, a halt. The check is owed in the database from the fill's own statement or
// transaction (decision 1030), for a user with a daily loss limit in force, and settled by the check that
// weighed it: a check that fails, or a process stopped before it, leaves it for the reconcile pass (on start
// and every ORDER_RECONCILE_SECONDS, on any instance) or the user's next order, whichever comes first.
import { Decimal } from 'decimal.js';
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.ts';
import type { DailyLossLimits } from '../trading/index.ts';
import type { DayFill } from './daily-loss-owed.repository.ts';
import type { OrdersDeps } from './orders.deps.ts';
import type { OrderMode } from '../../platform/order-venue.ts';
import { realizedLoss } from './orders.domain.ts';
import type { OrdersRepository } from './orders.repository.ts';

/** The owed checks a pass takes at most: the rest wait for the next pass. */
const OWED_PER_PASS = 500;

export function createDailyLossCheck(deps: {
  repo: Pick<OrdersRepository, 'dayFillsOwed' | 'settleOwed' | 'owedChecks'>;
  controls: Pick<OrdersDeps['controls'], 'noteRealizedLoss'>;
  clock: Clock;
  logger: Pick<Logger, 'warn'>;
}) {
  const { repo, controls, clock, logger } = deps;
  let running: Promise<number> | undefined;

  const lossOf = (fills: DayFill[]) =>
    realizedLoss(
      fills.map((f) => {
        const [base, quote] = f.symbol.split('/');
        return {
          market: `${f.exchange} ${f.symbol}`,
          side: f.side,
          price: f.price,
          amount: f.amount,
          quoteFee:
            f.feeCurrency === quote
              ? f.fee
              : f.feeCurrency === base
                ? new Decimal(f.fee).times(f.price).toFixed()
                : '0',
        };
      }),
    );

  /**
   * The check, then the owed row settled at the version it weighed: the one read with the day's fills (one
   * snapshot), else, when the loss was not needed (no limit in force now), `version` as the caller read it
   * before the check. A fill stored since gives the row a new version, and the row stays owed for it.
   */
  async function check(userId: string, mode: OrderMode, limits?: DailyLossLimits, version?: string): Promise<void> {
    let weighed = version ?? null;
    await controls.noteRealizedLoss(
      userId,
      async () => {
        const now = clock.now();
        const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
        const day = await repo.dayFillsOwed(userId, mode, dayStart);
        weighed = day.version;
        return lossOf(day.fills);
      },
      limits,
    );
    if (weighed !== null) await repo.settleOwed(userId, mode, weighed);
  }

  /** The checks owed (by any process, stopped or not), once more each; answers how many stay owed. One run at a time. */
  function recheck(): Promise<number> {
    running ??= (async () => {
      let left = 0;
      for (const { userId, mode, version } of await repo.owedChecks(OWED_PER_PASS)) {
        try {
          await check(userId, mode, undefined, version);
        } catch (error) {
          left += 1;
          logger.warn({ err: error, userId, mode }, 'the daily loss check is still owed; the next pass tries it again');
        }
      }
      return left;
    })().finally(() => {
      running = undefined;
    });
    return running;
  }

  return {
    /**
     * After a fill of `userId` in `mode`: the check, with the limits its statement read if it did. A failure
     * leaves the check owed for the pass, and goes on to the caller to log.
     */
    afterFill: (userId: string, mode: OrderMode, limits?: DailyLossLimits): Promise<void> =>
      check(userId, mode, limits),
    recheck,
    /** The user's checks owed, made now (before an order is admitted); a failure goes on to the caller. */
    async settleUser(userId: string): Promise<void> {
      for (const { mode, version } of await repo.owedChecks(OWED_PER_PASS, userId))
        await check(userId, mode, undefined, version);
    },
    /** A pass in progress is waited for. */
    async close(): Promise<void> {
      await running;
    },
  };
}
