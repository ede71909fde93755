// `npm run cli -- users:owner`, end to end (decision 903): the operator names the owner's account,
// another admin's API cannot demote it, the operator's own commands can, and the flag is taken back.
// A file of its own: each start of the server and the CLI costs seconds.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { cli, killStarted, startServer, STARTUP_MS, storage, postJson } from '../../helpers/processes.ts';

const POSTGRES = Boolean(process.env.DATABASE_URL);
const timeout = STARTUP_MS;

describe('npm run cli -- users:owner', () => {
  after(killStarted);

  it("names the owner's account, which another admin cannot demote and the operator can", {
    timeout: timeout * 2,
  }, async () => {
    const env = await storage();
    const ok = async (expected: string, ...args: string[]) => {
      const run = await cli(env, ...args);
      assert.deepEqual([run.code, run.stdout], [0, `${expected}\n`], run.stderr);
    };
    for (const email of ['founder@example.com', 'second@example.com']) {
      const made = await cli(
        env,
        'users:create',
        '--email',
        email,
        '--password',
        'admin-password-1',
        '--role',
        'admin',
      );
      assert.equal(made.code, 0, made.stderr);
    }
    await ok("founder@example.com is now the owner's account", 'users:owner', '--email', 'founder@example.com');
    await ok("founder@example.com is already the owner's account", 'users:owner', '--email', 'founder@example.com');

    const server = await startServer(env);
    const login = await postJson(`${server.url}/api/auth/login`, {
      email: 'second@example.com',
      password: 'admin-password-1',
    });
    const headers = { authorization: `Bearer ${String(login.body.access_token)}`, 'content-type': 'application/json' };
    const listed = await fetch(`${server.url}/api/admin/users?search=founder`, { headers });
    const founder = ((await listed.json()) as { users: { id: string }[] }).users[0]!;
    const demote = await fetch(`${server.url}/api/admin/users/${founder.id}`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ role: 'user' }),
    });
    assert.equal(demote.status, 409);
    assert.match(((await demote.json()) as { detail: string }).detail, /is the platform owner's account/);
    if (!POSTGRES) await server.stop();

    // The operator may: demote, and take the flag back.
    await ok('founder@example.com is now a user', 'users:demote', '--email', 'founder@example.com');
    await ok(
      "founder@example.com is no longer the owner's account",
      'users:owner',
      '--email',
      'founder@example.com',
      '--remove',
    );
    await ok(
      "founder@example.com is not the owner's account",
      'users:owner',
      '--email',
      'founder@example.com',
      '--remove',
    );
    if (POSTGRES) await server.stop();
  });
});
