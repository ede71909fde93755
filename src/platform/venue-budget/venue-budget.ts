// One request-weight budget per venue and egress IP, shared by every caller of that venue (the
// market module's client, every user's ccxt instance, the sync-accounts job) and, through the
// cache, by every instance (docs/decisions/110):
// - each call is charged its documented weight before it is sent (`acquire`), corrected upwards
//   from the venue's own count after it (`settle`), and given back when it never left (`release`);
// - calls are admitted while the minute's weight stays within `share` of the venue's limit (the
//   limit from exchangeInfo's rateLimits once known); one that would go over waits for the next
//   minute when that is at most `maxWaitMs` away, else it is refused with 503 and Retry-After;
// - a 429 or 418 from the venue opens the venue's breaker until its Retry-After, on every instance:
//   nothing is sent to the venue while it is open, so the service never provokes a 418;
// - five failures in a row that a caller reports (`failed`) open the same breaker for 30 s. It is the
//   venue's only breaker (decision 174): every caller and every health answer sees this one.
// - a venue with a shorter window per IP (decision 980) has calls admitted to the minute wait for room
//   in it too, in the order they came, at most `maxWaitMs`, else the budget's 503;
// - a key's own limits at the venue (decision 255) are counted per key, or per account where the venue
//   counts so (281), and a key's calls go one at a time where the venue needs its nonces in order (280).
// What a venue's requests weigh is declared by that venue's adapter code (`describe`), not here.
// Redis is an accelerator here too: when a command fails or is slow, this instance counts alone.
import type { Logger } from 'pino';
import type { Cache } from '../cache/cache.ts';
import { createMemoryCache } from '../cache/cache.ts';
import type { Clock } from '../clock.ts';
import { BudgetRefusal, UserShareRefusal } from './budget-refusals.ts';
import { scopedCaller, scopedShare } from './budget-scopes.ts';
import { createBudgetMetrics, type BudgetMetrics } from './budget-metrics.ts';
import { createKeyAccounts } from './key-accounts.ts';
import { createKeyCounters, KeyLimitRefusal, ipBurst, type KeyLimit } from './key-limits.ts';
import { createKeyTurns } from './key-turns.ts';
import type { BreakerState, BudgetState, VenueBudget, VenueBudgetSettings, VenueProfile } from './budget-types.ts';
import type { Metrics } from '../observability/metrics.ts';
import { withTimeout } from '../timeouts.ts';

export { BudgetRefusal, UserShareRefusal, budgetView } from './budget-refusals.ts';
export { KeyLimitRefusal } from './key-limits.ts';
export { withBudgetCaller, withBudgetShare } from './budget-scopes.ts';
export type { BreakerState, BudgetState, VenueBudget, VenueProfile } from './budget-types.ts';

const WINDOW_MS = 60_000;
const DEFAULT_SHARED_TIMEOUT_MS = 500;
/** A wait for the next minute ends a little after it, so that the venue's window has turned too. */
const WAIT_MARGIN_MS = 50;
const LIMIT_REFRESH_MS = 30_000;
/** Failures in a row that open the breaker, and for how long. */
export const FAILURE_BREAKER = { failures: 5, pauseMs: 30_000 } as const;
/** The limit of a venue whose weights are not modelled: never reached, one weight per call. */
const UNMODELLED_LIMIT = 1_000_000_000;

export function createVenueBudgets(deps: {
  cache: Cache;
  clock: Clock;
  settings: VenueBudgetSettings;
  metrics?: Metrics;
  logger?: Logger;
}) {
  const { cache, clock, settings } = deps;
  const sharedTimeoutMs = settings.sharedTimeoutMs ?? DEFAULT_SHARED_TIMEOUT_MS;
  const local = createMemoryCache();
  let degradedSince: number | null = null;
  const budgets = new Map<string, VenueBudget>();
  const metrics: BudgetMetrics | undefined = deps.metrics
    ? createBudgetMetrics(deps.metrics, () => [...budgets.values()])
    : undefined;

  /** The shared store, or this instance's own when Redis fails; each failure is logged once a minute. */
  async function store<T>(operation: (c: Cache) => Promise<T>): Promise<{ value: T; scope: 'shared' | 'local' }> {
    if (cache.kind === 'memory') return { value: await operation(cache), scope: 'local' };
    try {
      const value = await withTimeout(
        operation(cache),
        sharedTimeoutMs,
        () => new Error('shared budget store did not answer in time'),
      );
      degradedSince = null;
      return { value, scope: 'shared' };
    } catch (error) {
      const now = Date.now();
      if (degradedSince === null || now - degradedSince > WINDOW_MS) {
        degradedSince = now;
        deps.logger?.warn({ err: error }, 'venue budget: shared counts unavailable, counting on this instance alone');
      }
      return { value: await operation(local), scope: 'local' };
    }
  }

  function venue(id: string): VenueBudget {
    const existing = budgets.get(id);
    if (existing) return existing;
    let profile: VenueProfile = { label: id };
    const prefix = `venue-budget:${settings.egress}:${id}`;
    const limitKey = `${prefix}:limit`;
    const breakerKey = `${prefix}:breaker`;
    const windowKey = (minute: number) => `${prefix}:w:${minute}`;
    const userKey = (minute: number, user: string) => `${prefix}:u:${minute}:${user}`;
    let limit = UNMODELLED_LIMIT;
    let limitSource: BudgetState['limitSource'] = 'default';
    let limitCheckedAt = -Infinity;
    let lastUsed = { minute: -1, used: 0 };
    let lastBreaker: BreakerState | null = null;
    let consecutiveFailures = 0;
    let lastScope: BudgetState['scope'] = cache.kind === 'redis' ? 'shared' : 'local';

    const now = () => clock.now().getTime();
    const minuteOf = (at: number) => Math.floor(at / WINDOW_MS);
    const cap = (share = 1) => Math.floor(limit * settings.share * share);
    const note = (minute: number, used: number, scope: BudgetState['scope']) => {
      if (minute > lastUsed.minute || (minute === lastUsed.minute && used !== lastUsed.used))
        lastUsed = { minute, used };
      lastScope = scope;
    };

    /** Another instance may have read the venue's limit; look at most twice a minute. */
    async function refreshLimit(): Promise<void> {
      if (limitSource === 'venue' || Date.now() - limitCheckedAt < LIMIT_REFRESH_MS) return;
      limitCheckedAt = Date.now();
      const { value } = await store((c) => c.get<number>(limitKey));
      if (typeof value === 'number' && value > 0) {
        limit = value;
        limitSource = 'venue';
      }
    }

    async function openBreaker(): Promise<BreakerState | null> {
      const { value } = await store((c) => c.get<BreakerState>(breakerKey));
      const open = value && value.until > now() ? value : null;
      lastBreaker = open;
      return open;
    }

    function breakerRefusal(open: BreakerState): BudgetRefusal {
      const seconds = Math.max(1, Math.ceil((open.until - now()) / 1000));
      const detail = `${profile.label} is not being called for ${seconds} s after ${open.reason}`;
      return new BudgetRefusal(id, 'breaker', detail, seconds, open.status !== null);
    }

    async function openFor(state: BreakerState, forMs: number): Promise<void> {
      lastBreaker = state;
      // Kept a minute past its end, so a clock that stands still in tests still reads `until`.
      await store((c) => c.set(breakerKey, state, forMs + WINDOW_MS));
    }

    /** A user's part of the cap; never less than one call, so a heavy call is possible at all. */
    const userCap = (weight: number) => Math.max(weight, Math.floor(cap() * (settings.userShare ?? 1)));

    /**
     * The breaker, then the user's share (a greedy user is stopped without touching everyone's count),
     * then the venue's minute: checked and counted in one step of the store, one round trip to Redis
     * (decision 395). A call the venue's count refuses takes nothing from the user's share either.
     */
    async function admit(
      weight: number,
      share: number,
      user: string | undefined,
    ): Promise<{ open: BreakerState } | { open: null; added: boolean; used: number; minute: number; byUser: boolean }> {
      const at = now();
      const minute = minuteOf(at);
      // Calls the venue counts apart (Binance's SAPI, other venues' private calls) only honour the breaker.
      const counters =
        weight <= 0
          ? []
          : [
              ...(user === undefined ? [] : [{ key: userKey(minute, user), amount: weight, cap: userCap(weight) }]),
              { key: windowKey(minute), amount: weight, cap: cap(share) },
            ];
      const { value, scope } = await store((c) =>
        c.addAllWithin<BreakerState>({ key: breakerKey, now: at }, counters, 2 * WINDOW_MS),
      );
      if (value.outcome === 'paused') {
        lastBreaker = value.paused;
        return { open: value.paused };
      }
      lastBreaker = null;
      if (counters.length === 0) return { open: null, added: true, used: 0, minute, byUser: false };
      if (value.outcome === 'refused' && value.over < counters.length - 1)
        return { open: null, added: false, used: value.count, minute, byUser: true };
      const used = value.outcome === 'added' ? value.counts.at(-1)! : value.count;
      note(minute, used, scope);
      return { open: null, added: value.outcome === 'added', used, minute, byUser: false };
    }

    const keyCounting = {
      venue: id,
      label: () => profile.label,
      prefix,
      share: settings.share,
      maxWaitMs: settings.maxWaitMs,
      store,
      refused: () => metrics?.refused(id, 'key_limit'),
      waited: () => metrics?.waited(id),
    };
    const keys = createKeyCounters(keyCounting);
    const turns = createKeyTurns({
      venue: id,
      label: () => profile.label,
      prefix,
      maxWaitMs: settings.maxWaitMs,
      now,
      store,
      refused: () => metrics?.refused(id, 'key_limit'),
    });
    // The venue's short window (decision 980): one counter for the IP, drawn as a key's are, in arrival order.
    const bursts = createKeyCounters({ ...keyCounting, prefix: `${prefix}:burst`, refused: undefined });
    const burstOf = (weight: number) => {
      const burst = profile.weights?.burst;
      return burst && weight > 0 ? [ipBurst(burst, weight)] : [];
    };
    const accounts = createKeyAccounts({ prefix, store });
    /** Where a key's calls are counted: under its account where the venue counts per account and said which. */
    const countedAs = async (key: string): Promise<string> => {
      if (!profile.keyLimits?.perAccount) return key;
      const account = await accounts.of(key);
      return account === undefined ? key : `account:${account}`;
    };
    const onCounters =
      (operation: (key: string, limits: readonly KeyLimit[], maxWaitMs?: number) => Promise<void>) =>
      async (key: string, limits: readonly KeyLimit[], maxWaitMs?: number) =>
        operation(await countedAs(key), limits, maxWaitMs);

    const budget: VenueBudget = {
      venue: id,
      get label() {
        return profile.label;
      },
      get weights() {
        return profile.weights;
      },
      get keyLimits() {
        return profile.keyLimits;
      },
      get signedWaitMs() {
        return profile.signedWaitMs;
      },
      // After the call's `acquire`, whose one step has just read the breaker (decision 406): no second read.
      acquireKey: onCounters(keys.acquire),
      releaseKey: onCounters(keys.release),
      fillKey: onCounters(keys.fill),
      inTurn: turns.inTurn,
      keyAccount: accounts.of,
      learnKeyAccount: accounts.learn,

      describe(described) {
        profile = described;
        if (limitSource === 'default') limit = described.weights?.defaultLimit ?? UNMODELLED_LIMIT;
      },

      async acquire(weight, named, maxWaitMs = settings.maxWaitMs) {
        const user = named ?? scopedCaller();
        const longest = Math.min(maxWaitMs, settings.maxWaitMs);
        const until = Date.now() + longest;
        await refreshLimit();
        const share = scopedShare();
        const refusedByBreaker = (open: BreakerState) => {
          metrics?.refused(id, 'breaker');
          return breakerRefusal(open);
        };
        /** Admitted to the minute: then the venue's short window, else nothing was sent and nothing is owed. */
        const withinBurst = async () => {
          const limits = burstOf(weight);
          if (limits.length === 0) return;
          try {
            await bursts.acquire('ip', limits, Math.max(0, until - Date.now()));
          } catch (error) {
            await budget.release(weight, user).catch(() => undefined);
            if (!(error instanceof KeyLimitRefusal)) throw error;
            metrics?.refused(id, 'budget');
            throw new BudgetRefusal(id, 'budget', `${profile.label} calls for these seconds are used up`, 1);
          }
        };
        let attempt = await admit(weight, share, user);
        if (attempt.open) throw refusedByBreaker(attempt.open);
        if (attempt.added) return withinBurst();
        const untilNextMinute = (attempt.minute + 1) * WINDOW_MS - now();
        if (untilNextMinute <= longest) {
          metrics?.waited(id);
          await new Promise((resolve) => setTimeout(resolve, untilNextMinute + WAIT_MARGIN_MS));
          attempt = await admit(weight, share, user);
          if (attempt.open) throw refusedByBreaker(attempt.open);
          if (attempt.added) return withinBurst();
        }
        const seconds = ((attempt.minute + 1) * WINDOW_MS - now()) / 1000;
        if (attempt.byUser) {
          metrics?.refused(id, 'user_share');
          throw new UserShareRefusal(
            id,
            `Your share of the ${profile.label} request weight for this minute is used up ` +
              `(${attempt.used} of ${userCap(weight)} per user); other users' calls go on`,
            seconds,
          );
        }
        metrics?.refused(id, 'budget');
        throw new BudgetRefusal(
          id,
          'budget',
          `${profile.label} request weight budget for this minute is used up (${attempt.used} of ${cap(share)})`,
          seconds,
        );
      },

      async release(weight, named) {
        const user = named ?? scopedCaller();
        const minute = minuteOf(now());
        await store((c) => c.subtract(windowKey(minute), weight));
        if (user !== undefined) await store((c) => c.subtract(userKey(minute, user), weight));
        if (lastUsed.minute === minute) lastUsed = { minute, used: Math.max(0, lastUsed.used - weight) };
      },

      async settle(usedWeight) {
        if (!Number.isFinite(usedWeight) || usedWeight < 0) return;
        const minute = minuteOf(now());
        // This instance's view holds the venue's count at once; the shared count is raised by the command
        // sent now, ahead of any later call's admission on this connection (decision 462).
        if (minute > lastUsed.minute || (minute === lastUsed.minute && usedWeight > lastUsed.used))
          lastUsed = { minute, used: usedWeight };
        const { value, scope } = await store((c) => c.raiseTo(windowKey(minute), usedWeight, 2 * WINDOW_MS));
        note(minute, value, scope);
      },

      async trip(status, retryAfterMs) {
        const reason =
          status === 418 ? 'HTTP 418 (IP banned for exceeding its rate limit)' : `HTTP ${status} (rate limit)`;
        metrics?.tripped(id, status);
        deps.logger?.warn({ venue: id, status, retryAfterMs }, 'venue rate limit answer: every call to it paused');
        await openFor({ until: now() + retryAfterMs, reason, status }, retryAfterMs);
      },

      async failed() {
        consecutiveFailures += 1;
        if (consecutiveFailures < FAILURE_BREAKER.failures) return;
        const reason = `${consecutiveFailures} failures in a row`;
        deps.logger?.warn({ venue: id, failures: consecutiveFailures }, 'venue failing: every call to it paused');
        await openFor({ until: now() + FAILURE_BREAKER.pauseMs, reason, status: null }, FAILURE_BREAKER.pauseMs).catch(
          () => undefined,
        );
      },

      succeeded() {
        consecutiveFailures = 0;
      },

      refusal() {
        return lastBreaker && lastBreaker.until > now() ? breakerRefusal(lastBreaker) : null;
      },

      setLimit(value) {
        if (!Number.isFinite(value) || value <= 0 || (limitSource === 'venue' && value === limit)) return;
        limit = Math.floor(value);
        limitSource = 'venue';
        void store((c) => c.set(limitKey, limit, 24 * 60 * WINDOW_MS)).catch(() => undefined);
      },

      snapshot() {
        const current = minuteOf(now());
        const breaker = lastBreaker && lastBreaker.until > now() ? lastBreaker : null;
        return {
          venue: id,
          usedWeight1m: lastUsed.minute === current ? lastUsed.used : 0,
          limit1m: limit,
          cap1m: cap(),
          share: settings.share,
          limitSource,
          modelled: profile.weights !== undefined,
          breaker,
          consecutiveFailures,
          scope: lastScope,
        };
      },

      async state() {
        await refreshLimit();
        await openBreaker();
        const minute = minuteOf(now());
        const { value, scope } = await store((c) => c.get<number>(windowKey(minute)));
        note(minute, typeof value === 'number' ? value : 0, scope);
        if (typeof value !== 'number' && lastUsed.minute === minute) lastUsed = { minute, used: 0 };
        return budget.snapshot();
      },
    };
    budgets.set(id, budget);
    return budget;
  }

  return {
    venue,
    /** Every venue budget made so far, for reports. */
    all: (): VenueBudget[] => [...budgets.values()],
    async close(): Promise<void> {
      await local.close();
    },
  };
}

export type VenueBudgets = ReturnType<typeof createVenueBudgets>;
