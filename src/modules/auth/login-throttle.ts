// The sign-in throttle (decision 003): fixed windows per account from one client address, per client
// address over all accounts, and per account from everywhere, the last much higher so that failures
// from elsewhere do not lock the owner out; and sign-ups per client address.
import type { Cache } from '../../platform/cache/cache.ts';
import { clientKey } from '../../platform/http/client-address.ts';
import { rateLimited } from '../../platform/http/errors.ts';

/** Login attempts allowed per fixed window before answering 429. */
export const LOGIN_LIMITS = { perAccountAndClient: 5, perClient: 20, perAccount: 100, windowMs: 15 * 60 * 1000 };
const SIGNUP_WINDOW_MS = 60 * 60 * 1000;

export function createLoginThrottle(cache: Pick<Cache, 'incr' | 'decr' | 'del'>, signupLimitPerHour: number) {
  const keysOf = (email: string, ip: string | undefined) => {
    const client = clientKey(ip) ?? 'unknown';
    return {
      client: `login:client:${client}`,
      pair: `login:pair:${email}:${client}`,
      account: `login:account:${email}`,
    };
  };

  return {
    /**
     * Counts the attempt before the password is checked, so that parallel guesses cannot all slip
     * under a limit; a successful login gives it back. The address is counted first and a refused
     * attempt adds to no later counter: an address over its limit cannot create counters for made-up
     * e-mails, and one over an account's limit does not spend the account-wide one.
     */
    async reserve(email: string, ip: string | undefined): Promise<void> {
      const keys = keysOf(email, ip);
      const limits: [string, number][] = [
        [keys.client, LOGIN_LIMITS.perClient],
        [keys.pair, LOGIN_LIMITS.perAccountAndClient],
        [keys.account, LOGIN_LIMITS.perAccount],
      ];
      for (const [key, limit] of limits) {
        const attempt = await cache.incr(key, LOGIN_LIMITS.windowMs);
        if (attempt.count > limit)
          throw rateLimited(attempt.resetMs / 1000, 'Too many login attempts; try again later');
      }
    },

    /** The attempt did not count against the account (it never reached the password check's verdict). */
    async giveBack(email: string, ip: string | undefined): Promise<void> {
      const keys = keysOf(email, ip);
      await Promise.all([cache.decr(keys.client), cache.decr(keys.pair), cache.decr(keys.account)]);
    },

    /** The owner got in from this address: their own failures there are forgiven. */
    async release(email: string, ip: string | undefined): Promise<void> {
      const keys = keysOf(email, ip);
      await Promise.all([cache.decr(keys.client), cache.del(keys.pair), cache.decr(keys.account)]);
    },

    async reserveSignup(ip: string | undefined): Promise<void> {
      const attempt = await cache.incr(`signup:client:${clientKey(ip) ?? 'unknown'}`, SIGNUP_WINDOW_MS);
      if (attempt.count > signupLimitPerHour)
        throw rateLimited(attempt.resetMs / 1000, 'Too many sign-ups from this address; try again later');
    },
  };
}
