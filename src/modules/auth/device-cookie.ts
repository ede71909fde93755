// The device cookie (decision 196, after OWASP's "device cookies"): issued by a successful sign-in, it
// tells a later sign-in that this browser or client has signed in to this account before, so that the
// account-wide limit, which guessing from many addresses trips, does not refuse the owner. It is a
// random id and an HMAC over the id, the account and its password (its stored hash), under a key
// derived from the server's secret: it cannot be forged, and one presented for another account, altered,
// or issued before the password last changed (decision 881) is no cookie at all.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const DEVICE_COOKIE = 'tp_device';
/** Sent with every sign-in route (the API's and the console's), and nowhere else that matters. */
const DEVICE_COOKIE_PATH = '/api';
/** How long a device stays known without signing in again; each sign-in issues a new cookie. */
export const DEVICE_COOKIE_MAX_AGE_SECONDS = 180 * 24 * 60 * 60;
const VERSION = 'd2';

/**
 * The account a cookie is for: its address, and its password hash as stored (undefined for an address
 * no account has), which binds the cookie to the password it was earned with.
 */
export interface DeviceAccount {
  email: string;
  passwordHash: string | undefined;
}

export interface DeviceCookies {
  /** A new cookie value for this account and its password (the id is random: a new device each time). */
  issue(account: DeviceAccount, now: Date): string;
  /**
   * The device's id when the value is a cookie of ours for this account, issued under its present
   * password, and not too old; else undefined.
   */
  verify(value: string | undefined, account: DeviceAccount, now: Date): string | undefined;
}

export function createDeviceCookies(key: Buffer): DeviceCookies {
  // The account and its password hash are in the MAC, not in the cookie: the cookie names nobody, and
  // a new password (its hash has a new salt) ends every cookie earned before it (decision 881).
  const mac = (id: string, issuedAt: string, { email, passwordHash }: DeviceAccount) =>
    createHmac('sha256', key).update(`${VERSION}\n${id}\n${issuedAt}\n${email}\n${passwordHash}`).digest('base64url');
  return {
    issue(account, now) {
      const id = randomBytes(16).toString('base64url');
      const issuedAt = Math.floor(now.getTime() / 1000).toString(36);
      return `${VERSION}.${id}.${issuedAt}.${mac(id, issuedAt, account)}`;
    },
    verify(value, account, now) {
      if (!value || value.length > 200) return undefined;
      const [version, id, issuedAt, signature, ...rest] = value.split('.');
      if (version !== VERSION || !id || !issuedAt || !signature || rest.length > 0) return undefined;
      // An address no account has is checked as one that has, then refused: what is done depends on the
      // cookie alone, never on whether the address has an account (decision 1050).
      const expected = Buffer.from(mac(id, issuedAt, { ...account, passwordHash: account.passwordHash ?? '' }));
      const given = Buffer.from(signature);
      const matches = given.length === expected.length && timingSafeEqual(given, expected);
      if (!matches || account.passwordHash === undefined) return undefined;
      const ageSeconds = now.getTime() / 1000 - Number.parseInt(issuedAt, 36);
      return ageSeconds >= 0 && ageSeconds <= DEVICE_COOKIE_MAX_AGE_SECONDS ? id : undefined;
    },
  };
}

/** The Set-Cookie header: never readable by scripts, Secure over https, not sent by other sites. */
export function deviceCookieHeader(value: string, secure: boolean): string {
  return [
    `${DEVICE_COOKIE}=${value}`,
    `Path=${DEVICE_COOKIE_PATH}`,
    `Max-Age=${DEVICE_COOKIE_MAX_AGE_SECONDS}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

/** The device cookie in a Cookie header, or undefined. */
export function readDeviceCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at >= 0 && part.slice(0, at).trim() === DEVICE_COOKIE) return part.slice(at + 1).trim() || undefined;
  }
  return undefined;
}
