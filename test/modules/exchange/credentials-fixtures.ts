// Set-up shared by the credentials tests: the venue fakes and the app, two users and an admin, and
// the calls the tests make through the HTTP API.
import { before } from 'node:test';
import { signIn, type TestUser } from '../../helpers/test-app.ts';
import { useVenueApp } from './venue-app-fixtures.ts';

export const KEY = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
export const SECRET = 'sEcReT-0123456789-abcdefghijklmnopqrstuvwxyz';
export const PASSPHRASE = 'pass-phrase-42';

/**
 * The app of the enclosing describe, with Alice, Bob and an admin signed in by its before hooks. The
 * objects stay empty until those hooks fill them in, so the describe may take them at once, and its
 * tests use them.
 */
export function useCredentialsApp() {
  const { fakes, t, user: alice } = useVenueApp();
  const bob = {} as TestUser;
  const admin = {} as TestUser;
  before(async () => {
    Object.assign(bob, await signIn(t.app, t.database));
    Object.assign(admin, await signIn(t.app, t.database, { role: 'admin' }));
  });

  const request = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, user?: TestUser, payload?: unknown) =>
    t.app.inject({ method, url, headers: user?.headers ?? {}, payload: payload as object });
  /** The audit entries about one credential, as the owner's activity shows them. */
  const auditsOf = async (user: TestUser, targetId: string) => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/admin/users/${user.id}/activity?limit=100`,
      headers: admin.headers,
    });
    return (
      response.json() as { action: string; actor_id: string; target_id: string; details: Record<string, unknown> }[]
    ).filter((a) => a.target_id === targetId);
  };
  const create = (user: TestUser, fields: Record<string, unknown> = {}) =>
    request('POST', '/api/exchange/credentials', user, {
      exchange_name: 'binanceus',
      api_key: KEY,
      api_secret: SECRET,
      ...fields,
    });
  return { fakes, t, alice, bob, request, auditsOf, create };
}
