// The operator's command line as `npm run cli` runs it, beside a running server: on the embedded
// database it refuses while the server holds it (and loses nothing); on PostgreSQL it works beside it.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { cli, killStarted, startServer, STARTUP_MS, storage, postJson } from '../../helpers/processes.ts';

const POSTGRES = Boolean(process.env.DATABASE_URL);
const timeout = STARTUP_MS;

const login = async (base: string, email: string, password: string) =>
  postJson(`${base}/api/auth/login`, { email, password });
const get = async (url: string, token: string) =>
  (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).status;

/** The status `url` answers once it answers `status`, or after 5 s (servers cache a principal for 2 s). */
async function untilStatus(url: string, token: string, status: number): Promise<number> {
  const deadline = Date.now() + 5_000;
  let seen = await get(url, token);
  while (seen !== status && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    seen = await get(url, token);
  }
  return seen;
}

describe('npm run cli', () => {
  after(killStarted);

  it('explains itself: help lists every command, unknown commands and bad arguments exit 2', { timeout }, async () => {
    const env = await storage();
    // None of these opens the database: they run at once, each its own process.
    const [helps, unknown, bad, missing] = await Promise.all([
      Promise.all(['help', '--help'].map((asked) => cli(env, asked))),
      cli(env, 'users:drop'),
      cli(env, 'users:create', '--email', 'nope', '--password', 'short', '--role', 'root'),
      cli(env, 'users:create', '--email', 'x@example.com'),
    ]);
    for (const help of helps) {
      assert.equal(help.code, 0);
      for (const command of [
        'users:create',
        'users:list',
        'users:promote',
        'users:demote',
        'users:reset-password',
        'users:reset-2fa',
        'users:owner',
        'db:migrate',
        'db:backup',
        'db:restore',
      ]) {
        assert.match(help.stdout, new RegExp(`^ {2}${command}`, 'm'), command);
      }
    }
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^unknown command "users:drop"\nusage:/);
    assert.equal(bad.code, 2);
    assert.deepEqual(bad.stderr.split('\n'), [
      'error: --email must be an e-mail address (got "nope")',
      'error: --password must be 8 to 128 characters',
      'error: --role must be one of user, admin (got "root")',
      'usage: npm run cli -- users:create --email <email> --password <password> [--role user|admin] ' +
        '[--first-name <name>] [--last-name <name>]',
      '',
    ]);
    assert.match(missing.stderr, /^error: --password is required\n/);
  });

  it(`${POSTGRES ? 'works beside' : 'refuses, and loses nothing, while'} a running server`, {
    timeout: timeout * 2,
  }, async () => {
    const env = await storage();
    let server = await startServer(env);
    const registered = await postJson(`${server.url}/api/auth/register`, {
      email: 'ada@example.com',
      password: 'ada-password-1',
    });
    assert.equal(registered.status, 201);
    const created = await cli(env, 'users:create', '--email', 'bob@example.com', '--password', 'bob-password-1');
    if (!POSTGRES) {
      assert.equal(created.code, 1);
      assert.match(
        created.stderr,
        /^error: the embedded database in .*pglite is in use by process \d+, likely a running server\./,
      );
      assert.equal(created.stdout, '', 'no success is reported');
      assert.equal(await server.stop(), 0);
      assert.equal(
        (await cli(env, 'users:create', '--email', 'bob@example.com', '--password', 'bob-password-1')).code,
        0,
      );
      server = await startServer(env);
    } else {
      assert.equal(created.code, 0, created.stderr);
    }
    const bob = await login(server.url, 'bob@example.com', 'bob-password-1');
    assert.equal(bob.status, 200, 'the account the CLI created signs in on the server');
    const ada = await login(server.url, 'ada@example.com', 'ada-password-1');
    assert.equal(ada.status, 200, 'and what the server wrote is still there');
    await server.stop();
  });

  it('promotes, demotes (never the last admin), lists, and resets a lost password', {
    timeout: timeout * 2,
  }, async () => {
    const env = await storage();
    let server = await startServer(env);
    await postJson(`${server.url}/api/auth/register`, { email: 'ada@example.com', password: 'ada-password-1' });
    const token = String((await login(server.url, 'ada@example.com', 'ada-password-1')).body.access_token);
    assert.equal(await get(`${server.url}/api/admin/users`, token), 403);
    // The embedded database is the server's while it runs.
    if (!POSTGRES) await server.stop();

    const promoted = await cli(env, 'users:promote', '--email', 'ADA@example.com');
    assert.deepEqual([promoted.code, promoted.stdout], [0, 'ada@example.com is now an admin\n']);
    const last = await cli(env, 'users:demote', '--email', 'ada@example.com');
    assert.deepEqual(
      [last.code, last.stderr],
      [1, 'error: ada@example.com is the last active admin; promote another account first\n'],
    );
    const listed = await cli(env, 'users:list', '--role', 'admin');
    assert.match(
      listed.stdout,
      /^[0-9a-f-]{36}\tada@example\.com\tadmin\tactive\tfree\t\d{4}-\d\d-\d\dT[\d:.]+Z\n1 of 1 user\(s\)\n$/,
    );
    const nobody = await cli(env, 'users:promote', '--email', 'nobody@example.com');
    assert.deepEqual([nobody.code, nobody.stderr], [1, 'error: No user has the e-mail nobody@example.com\n']);

    // The running server sees the new role within its few seconds of caching.
    if (POSTGRES) assert.equal(await untilStatus(`${server.url}/api/admin/users`, token, 200), 200);

    const reset = await cli(env, 'users:reset-password', '--email', 'ada@example.com');
    assert.equal(reset.code, 0, reset.stderr);
    const [said, shown] = reset.stdout.split('\n');
    assert.match(said!, /^password of ada@example\.com reset; \d+ session\(s\) signed out$/);
    const password = /^new password: (.+)$/.exec(shown!)?.[1];
    assert.ok(password && password.length >= 12);

    if (!POSTGRES) server = await startServer(env);
    assert.equal(
      (await login(server.url, 'ada@example.com', 'ada-password-1')).status,
      401,
      'the old password is gone',
    );
    const fresh = await login(server.url, 'ada@example.com', password);
    assert.equal(fresh.status, 200);
    assert.equal(await get(`${server.url}/api/admin/users`, String(fresh.body.access_token)), 200);
    if (POSTGRES)
      assert.equal(
        await untilStatus(`${server.url}/api/auth/me`, token, 401),
        401,
        'the sessions before the reset are signed out',
      );
    await server.stop();
  });
});
