// Set-up shared by the credentials tests: the venue fakes and the app, two users and an admin, and
// the calls the tests make through the HTTP API.
import { buildTestApp, signIn, type TestUser } from '../../helpers/test-app.ts';
import { startVenueFakes } from './venue-fakes.ts';

export const KEY = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
export const SECRET = 'sEcReT-0123456789-abcdefghijklmnopqrstuvwxyz';
export const PASSPHRASE = 'pass-phrase-42';

export type CredentialsApp = Awaited<ReturnType<typeof startCredentialsApp>>;

export async function startCredentialsApp() {
  const fakes = await startVenueFakes();
  const t = await buildTestApp({ env: fakes.env() });
  const alice = await signIn(t.app, t.database);
  const bob = await signIn(t.app, t.database);
  const admin = await signIn(t.app, t.database, { role: 'admin' });

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
