// How many second-factor codes an account may be tried with (decision 197): every check of a TOTP code
// or a recovery code (sign-in, step-up, enable, disable) counts per account, whatever the address and
// whatever the password did, in two counters nothing but time resets: 5 wrong codes in a fixed
// 15-minute window lock code checks for the rest of it, and 50 with no 24-hour pause between them lock
// them until a day has passed since the last (so no 24 hours ever hold more than 50). Attempts refused
// by a lock count for nothing and extend nothing. The owner is mailed once per lockout.
import type { Cache } from '../../platform/cache/cache.ts';
import type { GuardCounters } from '../../platform/cache/guard-counters.ts';
import type { Clock } from '../../platform/clock.ts';
import type { DbExecutor } from '../../platform/db/database.ts';
import { rateLimited } from '../../platform/http/errors.ts';
import type { NotificationsModule } from '../notifications/index.ts';

export const SECOND_FACTOR_LIMITS = {
  perWindow: 5,
  windowMs: 15 * 60 * 1000,
  perDay: 50,
  /** The daily counter ends only after this long without a counted attempt. */
  dayMs: 24 * 60 * 60 * 1000,
};

/** What the caller says once the code was checked. */
export interface SecondFactorAttempt {
  /** A right code: its own attempt is given back, and nothing else (the failures stay counted). */
  succeeded(): Promise<void>;
  /** A wrong, replayed or spent code: stays counted; the owner is mailed when it starts a lockout. */
  failed(): Promise<void>;
}

const locked = (resetMs: number) =>
  rateLimited(resetMs / 1000, 'Too many wrong two-factor codes for this account; try again later');

export function createSecondFactorAttempts(deps: {
  /** The daily lock and the once-per-lockout mail. */
  cache: Pick<Cache, 'acquire' | 'get' | 'set'>;
  /** Both counters: shared across instances even while Redis is away (decision 455). */
  counters: GuardCounters;
  db: DbExecutor;
  messages: Pick<NotificationsModule['messages'], 'mail'>;
  clock: Clock;
}) {
  const { cache, counters, clock } = deps;
  const L = SECOND_FACTOR_LIMITS;

  async function mailLockout(user: { id: string; email: string }, until: Date): Promise<void> {
    await deps.messages.mail(
      deps.db,
      {
        to: user.email,
        subject: 'Two-factor codes for your account are paused',
        text:
          'Several wrong two-factor codes were just given for your account, so codes are not accepted ' +
          `until ${until.toISOString()}.\n\nA code is asked only after your password (or in a signed-in ` +
          'session): if this was not you, someone may know your password. Change it now.',
      },
      clock.now(),
    );
  }

  return {
    /**
     * Counts an attempt at a code for this account before it is checked (so parallel guesses cannot
     * slip under a limit); 429 with Retry-After while code checks are locked.
     */
    async reserve(user: { id: string; email: string }): Promise<SecondFactorAttempt> {
      const windowKey = `two-factor:codes:${user.id}`;
      const dayKey = `two-factor:codes-day:${user.id}`;
      const dayLockKey = `two-factor:codes-locked:${user.id}`;
      const lockedUntil = await cache.get<number>(dayLockKey);
      const now = clock.now().getTime();
      if (lockedUntil !== undefined && lockedUntil > now) throw locked(lockedUntil - now);
      const window = await counters.incr(windowKey, L.windowMs, L.perWindow);
      if (window.count > L.perWindow) throw locked(window.resetMs);
      // Every counted attempt starts the day again: no 24 hours can hold more than perDay of them.
      const day = await counters.incr(dayKey, L.dayMs, L.perDay, true);
      // Only attempts racing the one that reached the cap get here; they are refused all the same.
      if (day.count > L.perDay) throw locked(day.resetMs);
      return {
        async succeeded() {
          await Promise.all([counters.decr(windowKey), counters.decr(dayKey)]);
        },
        async failed() {
          if (window.count < L.perWindow && day.count < L.perDay) return;
          const lockMs = day.count >= L.perDay ? day.resetMs : window.resetMs;
          if (day.count >= L.perDay) await cache.set(dayLockKey, clock.now().getTime() + lockMs, lockMs);
          // One mail per lockout, whichever instance saw the attempt that started it.
          if (await cache.acquire(`two-factor:codes-mailed:${user.id}`, lockMs))
            await mailLockout(user, new Date(clock.now().getTime() + lockMs));
        },
      };
    },
  };
}

export type SecondFactorAttempts = ReturnType<typeof createSecondFactorAttempts>;
