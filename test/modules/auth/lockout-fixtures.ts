// What the owner-lockout tests share (decisions 196, 730): the device cookie a sign-in sets, and the
// attack that reaches the account-wide limit from addresses the account never saw.
import assert from 'node:assert/strict';
import { LOGIN_LIMITS } from '../../../src/modules/auth/login-throttle.ts';

type Answer = { statusCode: number; headers: Record<string, unknown> };
type Login = (user: { email: string; password: string }, remoteAddress: string) => Promise<Answer>;

/** The `tp_device` cookie a sign-in set, as a browser sends it back (`name=value`). */
export function deviceCookie(response: { headers: Record<string, unknown> }): string {
  const setCookie = response.headers['set-cookie'];
  const all = Array.isArray(setCookie) ? setCookie : [setCookie];
  const found = all.find((c): c is string => typeof c === 'string' && c.startsWith('tp_device='));
  assert.ok(found, `a device cookie is set: ${JSON.stringify(setCookie)}`);
  return found.split(';')[0]!;
}

/**
 * 21 addresses (each an IPv6 /64 of its own, under `net`) × the per-address wrong passwords: the
 * account-wide limit is reached while no one address is.
 */
export async function spreadAttack(login: Login, victim: { email: string }, net: number): Promise<void> {
  for (let a = 1; a <= 21; a++) {
    const statuses = await Promise.all(
      Array.from({ length: LOGIN_LIMITS.perAccountAndClient }, (_, i) =>
        login({ email: victim.email, password: `guess-${i}` }, `2001:db8:${net}:${a.toString(16)}::${i + 1}`),
      ),
    ).then((responses) => responses.map((r) => r.statusCode));
    assert.ok(
      statuses.every((s) => s === 401 || s === 429),
      `address ${a}: ${statuses}`,
    );
  }
}
