// The kill switch (docs/decisions/219): halting and resuming a user's or the whole platform's trading,
// the check every order passes before a venue is asked, and the daily loss that halts by itself. The
// halt is committed first, so no new order passes the check; then the listeners (the orders module's
// cancel-all) run and report what they canceled.
import type { Logger } from 'pino';
import type { Actor } from '../../platform/auth/actor.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/database.ts';
import { conflict, forbidden } from '../../platform/http/errors.ts';
import { withTimeout } from '../../platform/timeouts.ts';
import { dailyLossReason, holds, statusOf, type TradingStatus, type UserHalt } from './halts.domain.ts';
import {
  checkOrder,
  dailyLossLimitOf,
  effectiveLimits,
  nextUtcDay,
  NO_LIMITS,
  normalDecimal,
  pastDailyLoss,
  type CheckResult,
  type DailyLossLimits,
  type OrderCandidate,
  type OrderCounts,
} from './limits.domain.ts';
import type { LimitsService } from './limits.service.ts';
import { audit } from './trading.audit.ts';
import type { TradingDeps } from './trading.deps.ts';
import type { GateJoin, TradingRepository } from './trading.repository.ts';

/** Whose orders a halt is about. */
export type HaltTarget = { userId: string } | { platform: true };

/** What a listener reports: orders it canceled, and orders it could not (an `unknown` cancel, a refusal). */
export interface HaltOutcome {
  canceled: number;
  failed: number;
}

/** Called after a halt is committed: cancels the target's open orders. A listener may report what it did. */
export type HaltListener = (target: HaltTarget, reason: string) => Promise<HaltOutcome | undefined | void>;

export interface HaltListenerOptions {
  /**
   * What the listener's first run spends before it asks anyone (the venue library's load, decision 700):
   * awaited before the listener's bound starts, with no bound of its own (it is the machine's CPU, once). A
   * failure is the listener's (decision 801).
   */
  ready?: (target: HaltTarget) => Promise<void>;
}

export interface HaltResult {
  status: TradingStatus;
  /** Orders the listeners report canceled. */
  canceled: number;
  /** False when a listener failed, timed out or reported orders it could not cancel. */
  allCanceled: boolean;
}

/**
 * A listener still working after this long is left to finish; the halt answers without waiting for it.
 * The bound starts once the listener is ready (decision 801).
 */
export const LISTENER_TIMEOUT_MS = 20_000;

/** The caller's counts of the user's orders, read as a join of the gate's statement (decision 501). */
export interface CountsJoin extends GateJoin {
  /** The counts from the statement's row. */
  of(row: Record<string, unknown>): OrderCounts;
}

/** Another module's read joined to the gate's statement after the counts (decision 650), and its reading of the row. */
export interface BesideJoin<T> extends GateJoin {
  of(row: Record<string, unknown>): T;
}

/** What admits an order: not halted, and within the limits in force; the halt, or the limit broken, otherwise. */
export type Admission = { ok: true } | { ok: false; halted: TradingStatus } | (CheckResult & { ok: false });

export function createControlsService(deps: {
  db: Db;
  repo: TradingRepository;
  limits: Pick<LimitsService, 'inForce' | 'defaults'>;
  events: TradingDeps['events'];
  clock: Clock;
  logger: Logger;
  /** The listeners' bound (`LISTENER_TIMEOUT_MS` unless given; tests shorten it). */
  listenerTimeoutMs?: number;
}) {
  const { db, repo, limits, events, clock, logger } = deps;
  const listenerTimeoutMs = deps.listenerTimeoutMs ?? LISTENER_TIMEOUT_MS;
  const listeners: { listener: HaltListener; ready?: HaltListenerOptions['ready'] }[] = [];

  async function runListeners(target: HaltTarget, reason: string): Promise<Omit<HaltResult, 'status'>> {
    const outcomes = await Promise.allSettled(
      listeners.map(async ({ listener, ready }) => {
        // The bound is the cancels': a first run's load of the venue library is not in it (decision 801).
        await ready?.(target);
        return withTimeout(
          Promise.resolve().then(() => listener(target, reason)),
          listenerTimeoutMs,
        );
      }),
    );
    let canceled = 0;
    let allCanceled = true;
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') {
        allCanceled = false;
        logger.error({ err: outcome.reason, target }, 'a halt listener failed to cancel open orders');
      } else if (outcome.value) {
        canceled += outcome.value.canceled;
        if (outcome.value.failed > 0) allCanceled = false;
      }
    }
    return { canceled, allCanceled };
  }

  async function status(userId: string): Promise<TradingStatus> {
    const [user, platform] = await Promise.all([repo.userHalt(userId), repo.platformHalt()]);
    return statusOf(user, platform, clock.now());
  }

  /** Writes the user's halt and its audit entry; the halt written, or undefined when one already held. */
  async function haltUser(userId: string, halt: UserHalt, actor: Actor | null, details: object) {
    const written = await db.transaction(async (tx) => {
      const row = await repo.haltUser(userId, halt, halt.haltedAt, tx);
      if (!row) return undefined;
      await audit(
        {
          actorId: actor?.id ?? null,
          actorType: actor ? 'user' : 'system',
          action: halt.cause === 'daily_loss' ? 'trading.halt.daily_loss' : 'trading.halt.start',
          subjectUserId: userId,
          targetType: 'trading_halt',
          targetId: userId,
          details: { reason: halt.reason, ...details },
          ip: actor?.ip ?? null,
        },
        halt.haltedAt,
        tx,
      );
      return row;
    });
    if (written) {
      await events.user(userId, 'trading.halted', {
        cause: written.cause,
        reason: written.reason,
        until: written.until?.toISOString() ?? null,
      });
    }
    return written;
  }

  /** The daily loss limit in force, read now. */
  async function dailyLossLimitRead(userId: string): Promise<string | null> {
    const gate = await repo.gate(userId);
    return effectiveLimits(gate.own ?? limits.defaults, gate.caps ?? NO_LIMITS).dailyLossLimit;
  }

  return {
    /** Registers what runs after every halt: the orders module's cancel-all, and what it needs ready first. */
    onHalt(listener: HaltListener, options: HaltListenerOptions = {}): void {
      listeners.push({ listener, ready: options.ready });
    },

    /** Halted by the platform (first) or by the user; what the orders module refuses new orders on (423). */
    status,

    /**
     * The order path's one read (decision 271): the halts, the limits and the caller's counts of the
     * user's orders in one statement (decision 501: the counts as a join of the gate's). A halt refuses
     * (it has canceled first); then the limits. Read on every order, never cached, so a halt or a change
     * of limits holds from the next order on every instance.
     */
    async admit<T = never>(
      userId: string,
      candidate: OrderCandidate,
      counts: CountsJoin,
      /** Another read of the caller's, joined after the counts (its parameters after theirs, decision 650). */
      beside?: BesideJoin<T>,
    ): Promise<Admission & { beside?: T }> {
      const { gate, row } = await repo.gateWith(userId, beside ? [counts, beside] : [counts]);
      // What the caller reads beside refuses first: its refusal is thrown before the halt's or a limit's.
      const besides = beside ? { beside: beside.of(row) } : {};
      const seen = counts.of(row);
      const halt = statusOf(gate.userHalt, gate.platformHalt, clock.now());
      if (halt.halted) return { ok: false, halted: halt, ...besides };
      return {
        ...checkOrder(effectiveLimits(gate.own ?? limits.defaults, gate.caps ?? NO_LIMITS), candidate, seen),
        ...besides,
      };
    },

    /** Whether the order keeps within the user's limits in force; the first limit it breaks otherwise. */
    async check(userId: string, candidate: OrderCandidate, counts: OrderCounts): Promise<CheckResult> {
      return checkOrder(await limits.inForce(userId), candidate, counts);
    },

    /** Halts the user's trading and cancels their open orders; halting again runs the cancels again. */
    async halt(userId: string, reason: string, actor: Actor): Promise<HaltResult> {
      const now = clock.now();
      await haltUser(userId, { cause: 'user', reason, haltedAt: now, until: null }, actor, {});
      const current = await repo.userHalt(userId);
      const cancels = await runListeners({ userId }, current && holds(current, now) ? current.reason : reason);
      return { status: await status(userId), ...cancels };
    },

    /**
     * Lifts the user's own halt. A daily-loss halt holds until the next UTC day (409); the platform's
     * halt is an admin's to lift (403); nothing to lift is a 409.
     */
    async resume(userId: string, actor: Actor): Promise<TradingStatus> {
      const now = clock.now();
      const lifted = await db.transaction(async (tx) => {
        const row = await repo.endUserHalt(userId, now, tx);
        if (!row || !holds(row, now)) return undefined;
        await audit(
          {
            actorId: actor.id,
            actorType: 'user',
            action: 'trading.halt.end',
            subjectUserId: userId,
            targetType: 'trading_halt',
            targetId: userId,
            details: { reason: row.reason },
            ip: actor.ip,
          },
          now,
          tx,
        );
        return row;
      });
      if (!lifted) {
        const [own, platform] = await Promise.all([repo.userHalt(userId), repo.platformHalt()]);
        if (holds(own, now)) {
          throw conflict(
            `Trading is halted by the daily loss limit until ${own.until!.toISOString()}; it cannot be resumed before then`,
          );
        }
        if (platform) throw forbidden('Trading is halted by the platform; only an admin can resume it');
        throw conflict('Trading is not halted');
      }
      return status(userId);
    },

    /**
     * The orders module reports the user's realized loss of the UTC day after each fill (a positive
     * amount is a loss); past daily_loss_limit the user is halted until the next UTC day and the
     * listeners cancel the user's open orders. Answers whether this report halted the user. The loss
     * may be given as a function, called only when the user has a daily loss limit. `read`: the limits as the
     * statement storing the fill read them (decision 461); read here otherwise.
     */
    async noteRealizedLoss(
      userId: string,
      reported: string | (() => Promise<string>),
      read?: DailyLossLimits,
    ): Promise<boolean> {
      const dailyLossLimit = read ? dailyLossLimitOf(read, limits.defaults) : await dailyLossLimitRead(userId);
      // Without a limit the loss is not needed: a caller passing a function does not compute it.
      if (dailyLossLimit === null) return false;
      const dailyLoss = typeof reported === 'string' ? reported : await reported();
      if (!pastDailyLoss({ dailyLossLimit }, dailyLoss)) return false;
      const now = clock.now();
      const loss = normalDecimal(dailyLoss);
      const reason = dailyLossReason(loss, dailyLossLimit);
      const halt: UserHalt = { cause: 'daily_loss', reason, haltedAt: now, until: nextUtcDay(now) };
      const written = await haltUser(userId, halt, null, { daily_loss: loss, daily_loss_limit: dailyLossLimit });
      if (!written) return false;
      await runListeners({ userId }, reason);
      return true;
    },

    async platformStatus(): Promise<TradingStatus> {
      return statusOf(undefined, await repo.platformHalt(), clock.now());
    },

    /** Halts every user's trading and cancels every open order; halting again runs the cancels again. */
    async haltPlatform(reason: string, actor: Actor): Promise<HaltResult> {
      const now = clock.now();
      await db.transaction(async (tx) => {
        if (!(await repo.haltPlatform(reason, now, tx))) return;
        await audit(
          {
            actorId: actor.id,
            actorType: 'admin',
            action: 'trading.platform_halt.start',
            targetType: 'trading_platform',
            targetId: '1',
            details: { reason },
            ip: actor.ip,
          },
          now,
          tx,
        );
      });
      const current = await repo.platformHalt();
      const cancels = await runListeners({ platform: true }, current?.reason ?? reason);
      return { status: statusOf(undefined, current, now), ...cancels };
    },

    /** Lifts the platform's halt (409 when there is none); users' own halts stay. */
    async resumePlatform(actor: Actor): Promise<TradingStatus> {
      const now = clock.now();
      await db.transaction(async (tx) => {
        const lifted = await repo.resumePlatform(now, tx);
        if (!lifted) throw conflict('Trading is not halted by the platform');
        await audit(
          {
            actorId: actor.id,
            actorType: 'admin',
            action: 'trading.platform_halt.end',
            targetType: 'trading_platform',
            targetId: '1',
            details: { reason: lifted.reason },
            ip: actor.ip,
          },
          now,
          tx,
        );
      });
      return statusOf(undefined, undefined, now);
    },
  };
}

export type ControlsService = ReturnType<typeof createControlsService>;
