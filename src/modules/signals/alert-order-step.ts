// An alert's order step, shared by the alert route and the settle job: the order through the order placer
// (the same door as POST /api/orders, decision 221), for an owner who may trade now, and the report of an
// alert that proved its secret and made no order (counted on its hook, the owner told).
import type { Clock } from '../../platform/clock.ts';
import { type AppError, unavailable } from '../../platform/http/errors.ts';
import type { AlertOrder } from './alerts.domain.ts';
import type { HooksService } from './hooks.service.ts';
import type { OrderPlacer, SignalsDeps } from './signals.deps.ts';
import type { HookRow, SignalsRepository } from './signals.repository.ts';

/** What the order door answered: the order, and whether this call made it (false: its key named an earlier one). */
export type Placed = { orderId: string; created: boolean };

/** An AppError's detail as one line: its text, or its issues as `field: message`. */
export function reasonOf(error: AppError): string {
  if (typeof error.detail === 'string') return error.detail;
  if (!Array.isArray(error.detail)) return error.message;
  return error.detail.map((issue) => `${issue.loc.slice(1).join('.') || 'body'}: ${issue.msg}`).join('; ');
}

export function createAlertOrderStep(deps: {
  repo: Pick<SignalsRepository, 'countRefused' | 'noteError'>;
  hooks: Pick<HooksService, 'requireOwnerMayTrade'>;
  /** The order step (decision 221); null where trading is not wired: the order step then answers 503. */
  placer: OrderPlacer | null;
  events: SignalsDeps['events'];
  clock: Clock;
}) {
  const { repo, hooks, placer, events, clock } = deps;

  /** An alert that proved the secret made no order: counted (or only noted) on its hook, and the owner told. */
  async function report(hook: HookRow, status: number, reason: string, counted: boolean): Promise<void> {
    const now = clock.now();
    if (counted) await repo.countRefused(hook.id, `${status}: ${reason}`, now);
    else await repo.noteError(hook.id, `${status}: ${reason}`, now);
    await events.user(hook.userId, 'signal.refused', { hook_id: hook.id, hook_name: hook.name, status, reason });
  }

  return {
    report,

    /** Reports the error, then throws it: the answer of an alert refused at once. */
    async refuse(hook: HookRow, error: AppError, counted: boolean): Promise<never> {
      await report(hook, error.status, reasonOf(error), counted);
      throw error;
    },

    async place(hook: HookRow, alert: AlertOrder, alertKey: string): Promise<Placed> {
      if (!placer) throw unavailable('trading is not available');
      await hooks.requireOwnerMayTrade(hook.userId, hook.mode);
      return placer.place(hook.userId, {
        exchange: hook.exchange,
        symbol: alert.symbol,
        side: alert.side,
        type: alert.type,
        mode: hook.mode,
        size: alert.size,
        price: alert.price,
        hookId: hook.id,
        alertKey,
      });
    },

    /** The order the door stored under the alert's key, if any (503 where trading is not wired). */
    async placedFor(hook: HookRow, alertKey: string): Promise<string | undefined> {
      if (!placer) throw unavailable('trading is not available');
      return placer.placedFor(hook.userId, hook.id, alertKey);
    },
  };
}

export type AlertOrderStep = ReturnType<typeof createAlertOrderStep>;
