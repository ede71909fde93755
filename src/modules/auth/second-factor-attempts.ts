// How many second-factor codes an account may be tried with (decision 197): every check of a TOTP code
// or a recovery code at sign-in counts per account, whatever the address and
// whatever the password did, in two counters nothing but time resets: 5 wrong codes in a fixed
// 15-minute window lock code checks for the rest of it, and 50 with no 24-hour pause between them lock
// them until a day has passed since the last (so no 24 hours ever hold more than 50). Attempts refused
// by a lock count for nothing and extend nothing. The owner is mailed once per lockout. A sign-in from
// the owner's device (its device cookie) counts in counters of that device instead (decision 1052).
// Codes given in a signed-in session are the exception (step-up: decision 733; enable and disable:
// decision 1150): they count per session (5 in 15 minutes, 10 a day) and in an account-wide step-up
// day of their own (30), never in the sign-in's counters, so a session taken from the owner can hold
// neither the owner's sign-in nor, alone, the other sessions, and whoever locks the sign-in's codes
// does not hold the owner's signed-in session.
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

/**
 * A step-up's code attempts (decision 733): per session 5 in a 15-minute window and 10 a day, and
 * across the account's sessions 30 a day, the day starting again with every counted attempt as above.
 * One session alone cannot reach the account's 30, so it holds only itself.
 */
export const STEP_UP_LIMITS = {
  perWindow: 5,
  windowMs: 15 * 60 * 1000,
  perSessionDay: 10,
  perAccountDay: 30,
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
const sessionLocked = (resetMs: number) =>
  rateLimited(resetMs / 1000, 'Too many wrong two-factor codes in this session; try again later');

/** A counter an attempt was counted in, to give back when a later one refuses the attempt. */
type Counted = { key: string; count: number; resetMs: number };

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

  async function mailStepUpLockout(user: { id: string; email: string }, until: Date, whole: boolean): Promise<void> {
    const held = whole
      ? `so no session of yours can use a code until ${until.toISOString()}. Signing in is not held.`
      : `so that session's codes are not accepted until ${until.toISOString()}. Your sign-in and your ` +
        'other sessions are not held.';
    await deps.messages.mail(
      deps.db,
      {
        to: user.email,
        subject: 'Two-factor codes for a signed-in session are paused',
        text:
          `Several wrong two-factor codes were just given in ${whole ? 'sessions' : 'a session'} signed in ` +
          `to your account, ${held}\n\nIf this was not you, someone holds a session of yours: change your ` +
          'password now (a new sign-in with your code lets you), which signs every other session out.',
      },
      clock.now(),
    );
  }

  /** A day counter that locks until `dayMs` after its last counted attempt once it reaches `cap`. */
  async function countDay(key: string, cap: number, refuse: (ms: number) => Error): Promise<Counted> {
    const lockedUntil = await cache.get<number>(`${key}:locked`);
    const now = clock.now().getTime();
    if (lockedUntil !== undefined && lockedUntil > now) throw refuse(lockedUntil - now);
    const day = await counters.incr(key, STEP_UP_LIMITS.dayMs, cap, true);
    if (day.count > cap) {
      await counters.decr(key);
      throw refuse(day.resetMs);
    }
    return { key, ...day };
  }

  return {
    /**
     * Counts a step-up's code attempt before it is checked (decision 733): in the session's own window
     * and day and in the account's step-up day, none of which a sign-in reads. 429 with Retry-After
     * while one of them is locked; a refused attempt is given back wherever it was counted.
     */
    async reserveStepUp(user: { id: string; email: string }, sessionId: string): Promise<SecondFactorAttempt> {
      const S = STEP_UP_LIMITS;
      const windowKey = `two-factor:step-up:session:${sessionId}`;
      const counted: Counted[] = [];
      const giveBack = () => Promise.all(counted.map((c) => counters.decr(c.key)));
      try {
        const window = await counters.incr(windowKey, S.windowMs, S.perWindow);
        if (window.count > S.perWindow) throw sessionLocked(window.resetMs);
        counted.push({ key: windowKey, ...window });
        counted.push(await countDay(`two-factor:step-up-day:session:${sessionId}`, S.perSessionDay, sessionLocked));
        counted.push(await countDay(`two-factor:step-up-day:${user.id}`, S.perAccountDay, locked));
      } catch (error) {
        await giveBack();
        throw error;
      }
      const [window, sessionDay, accountDay] = counted as [Counted, Counted, Counted];
      const sessionFull = sessionDay.count >= S.perSessionDay;
      const accountFull = accountDay.count >= S.perAccountDay;
      return {
        succeeded: async () => {
          await giveBack();
        },
        async failed() {
          if (window.count < S.perWindow && !sessionFull && !accountFull) return;
          const now = clock.now().getTime();
          // A full day locks until a day after its last attempt; a full window ends on its own.
          for (const [day, full] of [
            [sessionDay, sessionFull],
            [accountDay, accountFull],
          ] as const)
            if (full) await cache.set(`${day.key}:locked`, now + day.resetMs, day.resetMs);
          const lockMs = Math.max(
            window.resetMs,
            sessionFull ? sessionDay.resetMs : 0,
            accountFull ? accountDay.resetMs : 0,
          );
          // One mail per lockout: the account's once, each session's once.
          const mailKey = accountFull ? user.id : `session:${sessionId}`;
          if (await cache.acquire(`two-factor:step-up-mailed:${mailKey}`, lockMs))
            await mailStepUpLockout(user, new Date(now + lockMs), accountFull);
        },
      };
    },

    /**
     * Counts an attempt at a code for this account before it is checked (so parallel guesses cannot
     * slip under a limit); 429 with Retry-After while code checks are locked.
     */
    async reserve(user: { id: string; email: string }, device?: string): Promise<SecondFactorAttempt> {
      // A sign-in from a device that completed one before (its device cookie, decision 196) counts in
      // counters of that device (decision 1052): whoever knows the password and guesses codes locks the
      // account's, never the owner's own browser. A cookie comes only from a completed sign-in.
      const of = device === undefined ? user.id : `device:${device}`;
      const windowKey = `two-factor:codes:${of}`;
      const dayKey = `two-factor:codes-day:${of}`;
      const dayLockKey = `two-factor:codes-locked:${of}`;
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
          if (await cache.acquire(`two-factor:codes-mailed:${of}`, lockMs))
            await mailLockout(user, new Date(clock.now().getTime() + lockMs));
        },
      };
    },
  };
}

export type SecondFactorAttempts = ReturnType<typeof createSecondFactorAttempts>;
