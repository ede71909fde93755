// POST /api/auth/password: a signed-in user changes their own password (decision 097).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PASSWORD_CHANGE_LIMITS } from '../../../src/modules/auth/password.service.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { assertDetail, assertIssue } from '../../helpers/error-assertions.ts';

describe('auth: change your own password', () => {
  let t: TestApp;
  let admin: TestUser;
  before(async () => {
    t = await buildTestApp();
    admin = await signIn(t.app, t.database, { role: 'admin' });
  });
  after(async () => {
    await t.close();
  });

  const change = (user: { headers: Record<string, string> } | undefined, payload: unknown) =>
    t.app.inject({
      method: 'POST',
      url: '/api/auth/password',
      headers: user?.headers ?? {},
      payload: payload as object,
    });
  const login = (email: string, password: string) =>
    t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
  const me = (token: string) =>
    t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } });
  const activity = async (userId: string) =>
    (await t.app.inject({ method: 'GET', url: `/api/admin/users/${userId}/activity`, headers: admin.headers })).json<
      { action: string; details: Record<string, unknown> }[]
    >();

  it('sets the new password, keeps this session and signs every other one out', async () => {
    const user = await signIn(t.app, t.database);
    const other = (await login(user.email, user.password)).json<{ access_token: string; refresh_token: string }>();
    const response = await change(user, { current_password: user.password, new_password: 'a brand new password' });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { success: true });

    assert.equal((await me(user.token)).statusCode, 200, 'the session that changed it stays signed in');
    assert.equal((await me(other.access_token)).statusCode, 401, 'another session is revoked at once');
    const refreshed = await t.app.inject({
      method: 'POST',
      url: '/api/auth/refresh',
      payload: { refresh_token: other.refresh_token },
    });
    assert.equal(refreshed.statusCode, 401);
    assert.equal((await login(user.email, user.password)).statusCode, 401, 'the old password no longer works');
    assert.equal((await login(user.email, 'a brand new password')).statusCode, 200);

    const entry = (await activity(user.id)).find((e) => e.action === 'auth.password_change');
    assert.deepEqual(entry?.details, { sessionsRevoked: 1 });
    assert.ok(
      !t.logText().includes('a brand new password') && !t.logText().includes(user.password),
      'no password in the log',
    );
  });

  it('gives an admin a way back: after a change they sign in with the new password', async () => {
    const other = await signIn(t.app, t.database, { role: 'admin' });
    const response = await change(other, { current_password: other.password, new_password: 'admin-chosen-password' });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal((await login(other.email, 'admin-chosen-password')).statusCode, 200);
  });

  it('answers 400 for a wrong current password and changes nothing; the sixth wrong guess answers 429', async () => {
    const user = await signIn(t.app, t.database);
    for (let i = 0; i < PASSWORD_CHANGE_LIMITS.perUser; i++) {
      assertDetail(
        await change(user, { current_password: `wrong-${i}`, new_password: 'never applied 1' }),
        400,
        'Current password is incorrect',
      );
    }
    const limited = await change(user, { current_password: user.password, new_password: 'never applied 2' });
    assertDetail(limited, 429, 'Too many password change attempts; try again later');
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal((await login(user.email, user.password)).statusCode, 200, 'the password is unchanged');
    assert.equal((await me(user.token)).statusCode, 200);
    assert.ok((await activity(user.id)).some((e) => e.action === 'auth.password_change_failed'));
  });

  it('a right guess gives the attempts back', async () => {
    const user = await signIn(t.app, t.database);
    for (let i = 0; i < PASSWORD_CHANGE_LIMITS.perUser - 1; i++)
      await change(user, { current_password: 'wrong', new_password: 'never applied 3' });
    assert.equal(
      (await change(user, { current_password: user.password, new_password: 'second password' })).statusCode,
      200,
    );
    for (let i = 0; i < PASSWORD_CHANGE_LIMITS.perUser - 1; i++)
      await change(user, { current_password: 'wrong', new_password: 'never applied 4' });
    assert.equal(
      (await change(user, { current_password: 'second password', new_password: 'third password' })).statusCode,
      200,
    );
  });

  it('a stolen session that guesses wrong locks itself only: the owner changes the password from their own and ends it', async () => {
    const owner = await signIn(t.app, t.database);
    // Whoever took a session of the account (its tokens, from a shared machine) guesses the password.
    const taken = (await login(owner.email, owner.password)).json<{ access_token: string }>();
    const stolen = { headers: { authorization: `Bearer ${taken.access_token}` } };
    for (let i = 0; i < PASSWORD_CHANGE_LIMITS.perUser; i++)
      assertDetail(
        await change(stolen, { current_password: `wrong-${i}`, new_password: 'never applied 5' }),
        400,
        'Current password is incorrect',
      );
    assertDetail(
      await change(stolen, { current_password: 'wrong-5', new_password: 'never applied 5' }),
      429,
      'Too many password change attempts; try again later',
    );
    // The owner's own session is not held by the other's guesses: the change ends the stolen session.
    const changed = await change(owner, { current_password: owner.password, new_password: 'taken back password' });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal((await me(taken.access_token)).statusCode, 401);
  });

  it("a stolen session's wrong passwords do not stop the owner turning two-factor on (which signs it out)", async () => {
    const owner = await signIn(t.app, t.database);
    const taken = (await login(owner.email, owner.password)).json<{ access_token: string }>();
    const stolen = { authorization: `Bearer ${taken.access_token}` };
    const setup = (headers: Record<string, string>, password: string) =>
      t.app.inject({ method: 'POST', url: '/api/auth/2fa/setup', headers, payload: { password } });
    for (let i = 0; i < PASSWORD_CHANGE_LIMITS.perUser; i++)
      assertDetail(await setup(stolen, `wrong-${i}`), 400, 'Password is incorrect');
    assertDetail(await setup(stolen, 'wrong-5'), 429, 'Too many two-factor attempts; try again later');
    const started = await setup(owner.headers, owner.password);
    assert.equal(started.statusCode, 200, started.body);
  });

  it('holds the new password to the registration rules and refuses the current one, with masked inputs', async () => {
    const user = await signIn(t.app, t.database);
    const short = assertIssue(
      await change(user, { current_password: user.password, new_password: 'short' }),
      ['body', 'new_password'],
      'string_too_short',
    );
    assert.equal(short.input, '**********');
    assertIssue(
      await change(user, { current_password: user.password, new_password: 'x'.repeat(129) }),
      ['body', 'new_password'],
      'string_too_long',
    );
    assertIssue(await change(user, { current_password: user.password }), ['body', 'new_password'], 'missing');
    const same = assertIssue(
      await change(user, { current_password: user.password, new_password: user.password }),
      ['body', 'new_password'],
      'value_error',
    );
    assert.equal(same.input, '**********');
    assert.equal(same.msg, 'Value error, the new password must differ from the current one');
    assert.equal((await login(user.email, user.password)).statusCode, 200);
  });

  it('needs a bearer token, checked before the body', async () => {
    const response = await change(undefined, { new_password: 'x' });
    assertDetail(response, 401, 'Not authenticated');
    assert.equal(response.headers['www-authenticate'], 'Bearer');
  });
});
