// The sign-in throttle (decisions 003, 196): fixed windows per account from one client address, per
// client address over all accounts, and per account from everywhere; and sign-ups per client address.
// A client that has signed in to the account before is not held to the account-wide limit, so that
// guessing from many addresses slows unknown clients without refusing the owner: one with a device
// cookie of the account is counted by that cookie alone, one from an address the owner signed in
// from is counted per address only.
import type { Cache } from '../../platform/cache/cache.ts';
import type { GuardCounters } from '../../platform/cache/guard-counters.ts';
import type { Clock } from '../../platform/clock.ts';
import { clientKey } from '../../platform/http/client-address.ts';
import { rateLimited } from '../../platform/http/errors.ts';
import type { DeviceAccount, DeviceCookies } from './device-cookie.ts';

/** Login attempts allowed per fixed window before answering 429. */
export const LOGIN_LIMITS = {
  perAccountAndClient: 5,
  perClient: 20,
  perAccount: 100,
  /** Attempts with one device cookie, which is exempt from the other limits. */
  perDevice: 5,
  windowMs: 15 * 60 * 1000,
};
const SIGNUP_WINDOW_MS = 60 * 60 * 1000;

/** Where a sign-in comes from: its address and the device cookie it presented, if any. */
export interface LoginClient {
  ip?: string;
  device?: string;
}

/**
 * How an attempt was counted: by a valid device cookie of the account (its id), or by its address,
 * which is `known` when the account's owner signed in from it before.
 */
export type LoginReservation = { by: 'device'; device: string } | { by: 'address'; known: boolean };

export function createLoginThrottle(deps: {
  /** The known-address marks. */
  cache: Pick<Cache, 'get' | 'set'>;
  /** Every counter of the throttle, sign-ups' too: shared across instances even while Redis is away (decision 455). */
  counters: GuardCounters;
  devices: DeviceCookies;
  clock: Clock;
  settings: { signupLimitPerHour: number; refreshTokenTtlDays: number };
}) {
  const { cache, counters, devices, clock, settings } = deps;
  /** An address the owner signed in from stays known as long as a session begun there may live. */
  const knownAddressTtlMs = settings.refreshTokenTtlDays * 24 * 60 * 60 * 1000;
  const keysOf = (email: string, ip: string | undefined) => {
    const client = clientKey(ip);
    const at = client ?? 'unknown';
    return {
      client: `login:client:${at}`,
      pair: `login:pair:${email}:${at}`,
      account: `login:account:${email}`,
      // No address, no trust: every client without one would share it.
      known: client ? `login:known:${email}:${client}` : undefined,
    };
  };
  /** The counters an attempt counted as this reservation is kept in, each with its limit. */
  const countersOf = (email: string, client: LoginClient, how: LoginReservation): [string, number][] => {
    if (how.by === 'device') return [[`login:device:${how.device}`, LOGIN_LIMITS.perDevice]];
    const keys = keysOf(email, client.ip);
    return [
      [keys.client, LOGIN_LIMITS.perClient],
      [keys.pair, LOGIN_LIMITS.perAccountAndClient],
      ...(how.known ? [] : [[keys.account, LOGIN_LIMITS.perAccount] as [string, number]]),
    ];
  };

  return {
    /**
     * How an attempt from this client at this account is counted; counts nothing. A device cookie counts
     * only while the account's password is the one it was earned with (decision 881).
     */
    async classify(account: DeviceAccount, client: LoginClient): Promise<LoginReservation> {
      const device = devices.verify(client.device, account, clock.now());
      if (device) return { by: 'device', device };
      const { known } = keysOf(account.email, client.ip);
      return { by: 'address', known: known !== undefined && (await cache.get(known)) !== undefined };
    },

    /**
     * Counts the attempt before the password is checked, so that parallel guesses cannot all slip
     * under a limit; a successful sign-in gives it back. The address is counted first and a refused
     * attempt adds to no later counter: an address over its limit cannot create counters for made-up
     * e-mails, and one over an account's limit does not spend the account-wide one.
     */
    async reserve(account: DeviceAccount, client: LoginClient): Promise<LoginReservation> {
      const how = await this.classify(account, client);
      for (const [key, limit] of countersOf(account.email, client, how)) {
        const attempt = await counters.incr(key, LOGIN_LIMITS.windowMs, limit);
        if (attempt.count > limit)
          throw rateLimited(attempt.resetMs / 1000, 'Too many login attempts; try again later');
      }
      return how;
    },

    /** The attempt did not count against the account (it never reached the password check's verdict). */
    async giveBack(email: string, client: LoginClient, how: LoginReservation): Promise<void> {
      await Promise.all(countersOf(email, client, how).map(([key]) => counters.decr(key)));
    },

    /**
     * The owner got in (with the second factor, when it is on) from this client: its own failures
     * there are forgiven, and only there (another address's or device's counters stay as they are).
     */
    async release(email: string, client: LoginClient, how: LoginReservation): Promise<void> {
      if (how.by === 'device') {
        await counters.del(`login:device:${how.device}`);
        return;
      }
      const keys = keysOf(email, client.ip);
      await Promise.all([
        counters.decr(keys.client),
        counters.del(keys.pair),
        ...(how.known ? [] : [counters.decr(keys.account)]),
      ]);
    },

    /**
     * Remembers the client as the owner's: its address becomes known to the account, and the answer
     * is a new device cookie to set.
     */
    async trust(account: DeviceAccount, client: LoginClient): Promise<string> {
      const { known } = keysOf(account.email, client.ip);
      if (known) await cache.set(known, 1, knownAddressTtlMs);
      return devices.issue(account, clock.now());
    },

    async reserveSignup(ip: string | undefined): Promise<void> {
      const attempt = await counters.incr(`signup:client:${clientKey(ip) ?? 'unknown'}`, SIGNUP_WINDOW_MS);
      if (attempt.count > settings.signupLimitPerHour)
        throw rateLimited(attempt.resetMs / 1000, 'Too many sign-ups from this address; try again later');
    },

    /** A sign-up refused for want of a slot (decision 1080) does not count against its address. */
    async giveBackSignup(ip: string | undefined): Promise<void> {
      await counters.decr(`signup:client:${clientKey(ip) ?? 'unknown'}`);
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
