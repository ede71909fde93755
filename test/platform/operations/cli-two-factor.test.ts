// `npm run cli -- users:reset-2fa`, end to end: a second factor enrolled through the API, reset by the
// operator's command, and the password alone signs in again. A file of its own: each start of the
// server and the CLI costs seconds, and cli.test.ts holds the other commands.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { cli, killStarted, startServer, STARTUP_MS, storage, postJson } from '../../helpers/processes.ts';
import { codeOf } from '../../helpers/totp-reference.ts';

const POSTGRES = Boolean(process.env.DATABASE_URL);
const timeout = STARTUP_MS;

const login = async (base: string, email: string, password: string) =>
  postJson(`${base}/api/auth/login`, { email, password });

/** The status `url` answers once it answers `status`, or after 5 s (servers cache a principal for 2 s). */
async function untilStatus(url: string, token: string, status: number): Promise<number> {
  const deadline = Date.now() + 5_000;
  const get = async () => (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).status;
  let seen = await get();
  while (seen !== status && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    seen = await get();
  }
  return seen;
}

describe('npm run cli -- users:reset-2fa', () => {
  after(killStarted);

  it('resets a lost second factor: the password alone signs in again, the sessions before are gone', {
    timeout: timeout * 2,
  }, async () => {
    const env = await storage();
    let server = await startServer(env);
    await postJson(`${server.url}/api/auth/register`, { email: 'eve@example.com', password: 'eve-password-1' });
    const token = String((await login(server.url, 'eve@example.com', 'eve-password-1')).body.access_token);
    const bearer = { authorization: `Bearer ${token}` };
    const setup = await postJson(`${server.url}/api/auth/2fa/setup`, { password: 'eve-password-1' }, bearer);
    assert.equal(setup.status, 200, JSON.stringify(setup.body));
    const enabled = await postJson(
      `${server.url}/api/auth/2fa/enable`,
      { code: codeOf(String(setup.body.secret)) },
      bearer,
    );
    assert.equal(enabled.status, 200, JSON.stringify(enabled.body));
    assert.equal((await login(server.url, 'eve@example.com', 'eve-password-1')).body.mfa_required, true);
    if (!POSTGRES) await server.stop();

    const reset = await cli(env, 'users:reset-2fa', '--email', 'eve@example.com');
    assert.deepEqual(
      [reset.code, reset.stdout],
      [0, 'two-factor authentication of eve@example.com reset; every session signed out\n'],
      reset.stderr,
    );
    const again = await cli(env, 'users:reset-2fa', '--email', 'eve@example.com');
    assert.deepEqual([again.code, again.stdout], [0, 'eve@example.com has no two-factor authentication to reset\n']);

    if (!POSTGRES) server = await startServer(env);
    const fresh = await login(server.url, 'eve@example.com', 'eve-password-1');
    assert.equal(fresh.status, 200);
    assert.equal(typeof fresh.body.access_token, 'string', 'tokens at once, no second step');
    assert.equal(
      await untilStatus(`${server.url}/api/auth/me`, token, 401),
      401,
      'the session before the reset is signed out',
    );
    await server.stop();
  });
});
