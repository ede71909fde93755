// Fills resting paper orders when the last price goes through them (docs/decisions/215). Prices come
// from the market module's sources, as GET /api/v1/market/stream gets them: the live WebSocket ticks,
// and while the stream is not live, the REST price list read on each period. The lowest and highest
// price seen per symbol since the last look decide; each fill is a conditional update of the order
// under its owner's account lock, so with several instances hearing the same tick exactly one fills it.
// The symbols with resting orders are read every period while some rest; while none does, only when
// an order comes to rest (any instance's, told on its commit) or on a slow fallback (docs/decisions/640).
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.ts';
import type { Database, Db } from '../../platform/db/database.ts';
import { D, fillResting, priceWentThrough, releaseLock, type Dec } from './matching.domain.ts';
import { BALANCE_WHOLE_DIGITS, overflowingAsset } from './paper.domain.ts';
import { RESTED_CHANNEL, type PaperOrderRow, type PaperRepository } from './paper.repository.ts';
import { changesOf, fillRows, type OrderChange } from './paper-venue.service.ts';

export interface PriceTick {
  /** The venue's symbol (BTCUSDT). */
  symbol: string;
  price: string;
}

export interface PaperPriceSource {
  /** Live ticks as they arrive; answers the unsubscribe. */
  onTicks(listener: (ticks: readonly PriceTick[]) => void): () => void;
  /** Whether the live stream is serving prices now. */
  streaming(): boolean;
  /** Every symbol's last price from the REST list (cached by the market module). */
  lastPrices(): Promise<ReadonlyMap<string, string>>;
}

export function createRestingWatch(deps: {
  db: Db;
  repo: PaperRepository;
  clock: Clock;
  prices: PaperPriceSource;
  logger: Logger;
  changed(change: OrderChange): void;
  /** The database's LISTEN (the outbox worker's too): how the watch hears of orders that came to rest. */
  listen: Database['listen'];
  /**
   * How often, while an order rests (or when the LISTEN cannot be made), the resting symbols are read
   * again and, without the live stream, REST prices polled.
   */
  periodMs: number;
  /** The longest the watch sleeps while no order rests and it listens: a fallback for a lost notification. */
  idlePeriodMs: number;
}) {
  const { db, repo, clock, prices, logger } = deps;
  /** Symbols with resting orders, as last read (any instance's), plus those rested here since. */
  let watched = new Set<string>();
  const restedMeanwhile = new Set<string>();
  const seen = new Map<string, { low: Dec; high: Dec }>();
  let running: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  /** When the timer fires (performance.now()). */
  let dueAt = Number.POSITIVE_INFINITY;
  let reading: Promise<void> | undefined;
  /** Asked to read while a read runs: it may have begun before what asked was committed. */
  let readAgain = false;
  let started = false;
  let unsubscribe: (() => void) | undefined;
  /** Set once the LISTEN is in place; until then (or if it fails) the watch reads every period. */
  let unlisten: (() => Promise<void>) | undefined;
  let listening: Promise<void> | undefined;

  function note(symbol: string, price: string): boolean {
    if (!watched.has(symbol)) return false;
    const value = new D(price);
    const range = seen.get(symbol);
    if (!range) seen.set(symbol, { low: value, high: value });
    else seen.set(symbol, { low: D.min(range.low, value), high: D.max(range.high, value) });
    return true;
  }

  async function fill(order: PaperOrderRow): Promise<boolean> {
    const now = clock.now();
    const left = new D(order.amount).minus(order.filled);
    const price = new D(order.price!);
    const done = await db.transaction(async (tx) => {
      // The balances are read under the account lock: the fill is weighed against what they hold.
      const held = (await repo.lockedBalances(order.userId, tx)) ?? [];
      const { execution, deltas } = fillResting(order.side, price, left, new D(order.makerFee));
      const changes = changesOf(order, deltas);
      // Each order fit when placed (decision 832), not every resting order of the asset together: a fill
      // past what the balance column holds expires the order, its lock given back, instead of failing its
      // write on every tick (decision 912).
      const overflowing = overflowingAsset(held, changes);
      if (overflowing) {
        const reason = `The paper balance of ${overflowing} would reach 10^${BALANCE_WHOLE_DIGITS}, more than a balance holds: the order expired unfilled.`;
        const expired = { status: 'expired', filled: order.filled, reason, at: now } as const;
        if (!(await repo.moveResting(order.id, order.filled, expired, tx))) return false;
        await repo.applyChanges(order.userId, changesOf(order, [releaseLock(order.side, left, price)]), now, tx);
        return true;
      }
      const moved = await repo.moveResting(
        order.id,
        order.filled,
        { status: 'filled', filled: order.amount, at: now },
        tx,
      );
      if (!moved) return false;
      await repo.insertFills(fillRows(order.id, order, [execution], now), tx);
      await repo.applyChanges(order.userId, changes, now, tx);
      return true;
    });
    if (done) deps.changed({ userId: order.userId, clientOrderId: order.clientOrderId });
    return done;
  }

  async function look(): Promise<void> {
    do {
      again = false;
      const ranges = new Map(seen);
      seen.clear();
      if (ranges.size === 0) continue;
      const orders = await repo.restingOn([...ranges.keys()]);
      for (const order of orders) {
        const range = ranges.get(order.venueSymbol);
        if (!range || !order.price || !priceWentThrough(order.side, new D(order.price), range)) continue;
        await fill(order).catch((error: unknown) =>
          logger.warn(
            { err: error, orderId: order.id },
            'paper: a resting order could not be filled; next tick retries',
          ),
        );
      }
    } while (again);
  }

  /** One look at a time; ticks arriving meanwhile are looked at right after. */
  function kick(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = look()
      .catch((error: unknown) => logger.warn({ err: error }, 'paper: resting orders could not be read'))
      .finally(() => {
        running = undefined;
      });
    return running;
  }

  async function period(): Promise<void> {
    try {
      // Symbols rested here while the read runs are kept: the read may have begun before their commit.
      restedMeanwhile.clear();
      const fresh = await repo.restingSymbols();
      watched = new Set([...fresh, ...restedMeanwhile]);
      if (watched.size === 0 || prices.streaming()) return;
      const last = await prices.lastPrices();
      let any = false;
      for (const symbol of watched) {
        const price = last.get(symbol);
        if (price !== undefined) any = note(symbol, price) || any;
      }
      if (any) await kick();
    } catch (error) {
      logger.debug({ err: error }, 'paper: the resting watch will try again next period');
    }
  }

  function cancel(): void {
    clearTimeout(timer);
    timer = undefined;
    dueAt = Number.POSITIVE_INFINITY;
  }

  function schedule(delayMs: number): void {
    cancel();
    if (!started) return;
    dueAt = performance.now() + delayMs;
    timer = setTimeout(read, delayMs);
    timer.unref();
  }

  /** Reads the resting symbols now (after the read in progress, if any), then sleeps as `nextDelay` says. */
  function read(): void {
    cancel();
    if (reading) {
      readAgain = true;
      return;
    }
    readAgain = false;
    reading = period().finally(() => {
      reading = undefined;
      schedule(readAgain ? 0 : nextDelay());
    });
  }

  /** Every period while an order rests or nothing tells the watch of new ones; else the slow fallback. */
  const nextDelay = () => (watched.size > 0 || !unlisten ? deps.periodMs : deps.idlePeriodMs);

  /** An order rests on `symbol` now (told here or by a notification): its ticks count, and periods run. */
  function rested(symbol: string): void {
    watched.add(symbol);
    restedMeanwhile.add(symbol);
    // A read in progress schedules the next period itself, the symbol counted.
    if (!reading && dueAt > performance.now() + deps.periodMs) schedule(deps.periodMs);
  }

  function listen(): void {
    listening = deps
      .listen(
        RESTED_CHANNEL,
        (symbol) => {
          if (symbol) rested(symbol);
        },
        // The LISTEN was lost and is back: orders rested meanwhile were announced to no one.
        read,
      )
      .then(
        async (stop) => {
          if (!started) return stop();
          unlisten = stop;
        },
        (error: unknown) => {
          logger.warn(
            { err: error },
            `paper: cannot listen for resting orders; reading them every ${deps.periodMs} ms`,
          );
        },
      )
      // The first read: with the LISTEN in place, nothing rested after it goes unannounced.
      .then(() => {
        if (started) read();
      });
  }

  return {
    /** An order now rests on `symbol` (left resting by this instance): its ticks count from now on. */
    rested,
    start(): void {
      if (started) return;
      started = true;
      unsubscribe = prices.onTicks((ticks) => {
        let any = false;
        for (const tick of ticks) any = note(tick.symbol, tick.price) || any;
        if (any) void kick();
      });
      listen();
    },
    async stop(): Promise<void> {
      started = false;
      unsubscribe?.();
      unsubscribe = undefined;
      cancel();
      await listening;
      const stop = unlisten;
      unlisten = undefined;
      await Promise.all([reading, running, stop?.()]);
    },
    /** Whether ticks of `symbol` are followed now. */
    watching: (symbol: string): boolean => watched.has(symbol),
    /** Looks at the prices seen so far now (tests; the ticks and the period call it themselves). */
    look: kick,
  };
}

export type RestingWatch = ReturnType<typeof createRestingWatch>;
