// The day's realized loss reported to the risk controls after each fill (decisions 214, 461): past the
// user's daily loss limit, a halt. A check that fails (the database, after the fill was stored) is owed:
// tried again by this instance after `retryMs` and by each reconcile pass it runs, until one succeeds,
// so the halt is not left for the user's next fill (decision 911).
import { Decimal } from 'decimal.js';
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.ts';
import type { DailyLossLimits } from '../trading/index.ts';
import type { OrdersDeps } from './orders.deps.ts';
import { realizedLoss } from './orders.domain.ts';
import type { OrdersRepository } from './orders.repository.ts';

type Mode = 'paper' | 'live';

export function createDailyLossCheck(deps: {
  repo: Pick<OrdersRepository, 'fillsSince'>;
  controls: Pick<OrdersDeps['controls'], 'noteRealizedLoss'>;
  clock: Clock;
  logger: Pick<Logger, 'warn'>;
  /** How long after a failed check this instance tries it again (the reconcile period). */
  retryMs: number;
}) {
  const { repo, controls, clock, logger } = deps;
  /** The checks owed, by user and mode: a later check of the same user and mode weighs the same day. */
  const owed = new Map<string, { userId: string; mode: Mode }>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let closed = false;

  async function dayLoss(userId: string, mode: Mode): Promise<string> {
    const now = clock.now();
    const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    const fills = await repo.fillsSince(userId, mode, dayStart);
    return realizedLoss(
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
  }

  /** The day's loss read only for a user with a daily loss limit; the limits as the fill's statement read them, if given. */
  const check = (userId: string, mode: Mode, limits?: DailyLossLimits) =>
    controls.noteRealizedLoss(userId, () => dayLoss(userId, mode), limits);

  function retryLater(): void {
    if (closed || timer || owed.size === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      void recheck();
    }, deps.retryMs);
    timer.unref();
  }

  /** The owed checks, once more each; answers how many stay owed. One run at a time. */
  function recheck(): Promise<number> {
    running ??= (async () => {
      for (const [key, { userId, mode }] of [...owed]) {
        try {
          await check(userId, mode);
          owed.delete(key);
        } catch (error) {
          logger.warn({ err: error, userId, mode }, 'the daily loss check is still owed; it is tried again');
        }
      }
      return owed.size;
    })().finally(() => {
      running = undefined;
      retryLater();
    });
    return running;
  }

  return {
    /** After a fill of `userId` in `mode`: the check. A failure is owed, and goes on to the caller to log. */
    async afterFill(userId: string, mode: Mode, limits?: DailyLossLimits): Promise<void> {
      const key = `${userId} ${mode}`;
      try {
        await check(userId, mode, limits);
      } catch (error) {
        owed.set(key, { userId, mode });
        retryLater();
        throw error;
      }
      owed.delete(key);
    },
    recheck,
    /** No retry after this; one in progress is waited for. */
    async close(): Promise<void> {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
