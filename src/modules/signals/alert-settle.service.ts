// The settle-signal-alerts job's work (docs/decisions/1160): a claim still owing its alert's order whose
// holder has not written for the order step's bound (its process died after the alert was answered) is
// taken over and settled: with the order the alert's key names, if the door stored one; else by placing the
// alert while it is within the hook's max_lag_seconds of when it was fired; else it is given up, counted as
// refused on its hook and the owner told. One a pass cannot settle now stays owed for a later pass.
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.ts';
import { AppError } from '../../platform/http/errors.ts';
import { isStillOwed, type OwedAlert } from './alerts.domain.ts';
import { reasonOf, type AlertOrderStep, type Placed } from './alert-order-step.ts';
import type { HookRow, SignalsRepository } from './signals.repository.ts';
import type { SettleSignalAlertsResult as SettleResult } from './settle-signal-alerts.job.ts';

/** Owed claims read per statement, and settled per pass at most (the rest wait for the next pass). */
const SETTLE_PAGE = 100;
const SETTLE_MAX = 1_000;

export function createAlertSettler(deps: {
  repo: SignalsRepository;
  step: AlertOrderStep;
  /** The order step's bound (claimTakeOverAfterMs): a claim older than it was left by a copy that stopped. */
  takeOverAfterMs: number;
  clock: Clock;
  logger: Logger;
}) {
  const { repo, step, takeOverAfterMs, clock, logger } = deps;

  async function settleOne(
    hook: HookRow,
    alertKey: string,
    alert: OwedAlert,
    claimed: Date,
  ): Promise<'recorded' | 'placed' | 'refused' | 'expired'> {
    const stored = await step.placedFor(hook, alertKey);
    if (stored) {
      await repo.placed(hook.id, alertKey, stored);
      return 'recorded';
    }
    if (!isStillOwed(alert, clock.now(), hook.maxLagSeconds)) {
      await repo.giveUp(hook.id, alertKey, claimed);
      logger.warn({ hookId: hook.id, alertKey }, 'an owed alert given up: older than its max_lag_seconds');
      await step.report(
        hook,
        503,
        `not placed: the server stopped while placing the alert fired at ${alert.firedAt}, which was more than ` +
          `${hook.maxLagSeconds} s (max_lag_seconds) old when it was found`,
        true,
      );
      return 'expired';
    }
    let placed: Placed;
    try {
      placed = await step.place(hook, alert, alertKey);
    } catch (error) {
      // Not now (the venue or the database away, the owner's order rate full): owed still, for a later
      // pass while the alert stays within its max_lag_seconds, then given up and told as above.
      if (!(error instanceof AppError) || error.status === 429 || error.status >= 500) throw error;
      await repo.release(hook.id, alertKey, claimed);
      await step.report(hook, error.status, reasonOf(error), true);
      return 'refused';
    }
    await repo.placed(hook.id, alertKey, placed.orderId);
    if (!placed.created) return 'recorded';
    await repo.countAccepted(hook.id, clock.now());
    return 'placed';
  }

  return {
    async settle(): Promise<SettleResult> {
      const result: SettleResult = { checked: 0, recorded: 0, placed: 0, refused: 0, expired: 0, failed: 0 };
      for (;;) {
        const now = clock.now();
        const before = new Date(now.getTime() - takeOverAfterMs);
        const page = await repo.owed(before, SETTLE_PAGE);
        for (const claim of page) {
          // Another instance's pass, or a repeat of the alert, took it first: it is theirs.
          if (!(await repo.takeOver(claim.hookId, claim.alertKey, now, before))) continue;
          result.checked += 1;
          const hook = await repo.byId(claim.hookId);
          if (!hook) continue;
          try {
            result[await settleOne(hook, claim.alertKey, claim.alert, now)] += 1;
          } catch (error) {
            result.failed += 1;
            logger.warn({ err: error, hookId: hook.id }, 'an owed alert left for the next pass');
          }
        }
        if (page.length < SETTLE_PAGE || result.checked >= SETTLE_MAX) return result;
      }
    },
  };
}
