// Deeply nested and non-UTF-8 JSON bodies on the real app: refused with a 422 before any route
// code runs, so nothing is stored and nothing answers 500 (decision 095).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LOCAL_DEFAULT_TEAM } from '../../../src/modules/tracker/adapters/local-tracker-backend.ts';
import { buildTestApp, signIn, type TestApp } from '../../helpers/test-app.ts';
import { assertIssue } from '../../helpers/error-assertions.ts';

const JSON_HEADERS = { 'content-type': 'application/json' };
/** A JSON text with the bytes 0xFF 0xFE where `\uFFFD` stands in `template`. */
const withBadBytes = (template: string) => {
  const [head, tail] = template.split('\uFFFD');
  return Buffer.concat([Buffer.from(head!), Buffer.from([0xff, 0xfe]), Buffer.from(tail!)]);
};

describe('refused JSON bodies on the real app', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(async () => {
    await t.close();
  });

  it(
    'a login body nested 3,230 levels deep answers 422 ' + 'every time, and does not touch the login counters',
    async () => {
      const user = await signIn(t.app, t.database);
      const deep = `${'['.repeat(3230)}${']'.repeat(3230)}`;
      // More than both throttling limits (5 per e-mail, 20 per address).
      for (let i = 0; i < 25; i++) {
        const response = await t.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          headers: JSON_HEADERS,
          payload: deep,
        });
        const issue = assertIssue(response, ['body', 64], 'json_invalid');
        assert.match(String(issue.ctx?.error), /Recursion limit exceeded/);
      }
      const login = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: user.email, password: user.password },
      });
      assert.equal(login.statusCode, 200, login.body);
    },
  );

  it('a deep body answers 422 on every JSON route, authenticated or not', async () => {
    const admin = await signIn(t.app, t.database, { role: 'admin' });
    const deep = `{"a":${'{"a":'.repeat(3230)}1${'}'.repeat(3231)}`;
    for (const url of [
      '/api/auth/register',
      '/api/v1/tracker/issues',
      '/api/admin/command-center/tasks',
      '/api/exchange/credentials',
    ]) {
      const response = await t.app.inject({
        method: 'POST',
        url,
        headers: { ...JSON_HEADERS, ...admin.headers },
        payload: deep,
      });
      assertIssue(response, ['body', 5 * 64], 'json_invalid');
    }
  });

  it('a registration whose password holds invalid UTF-8 answers 422 json_invalid and creates no account', async () => {
    const email = 'bytes@example.com';
    const template = `{"email":"${email}","password":"secret-\uFFFD-password"}`;
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: JSON_HEADERS,
      payload: withBadBytes(template),
    });
    const issue = assertIssue(response, ['body', template.indexOf('\uFFFD')], 'json_invalid');
    assert.equal(issue.ctx?.error, 'Invalid UTF-8: byte 0xff cannot be decoded');
    // The address is still free: nothing was stored with a replacement character in the password.
    const again = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email, password: 'secret-x-password' },
    });
    assert.equal(again.statusCode, 201, again.body);
  });

  it('a tracker issue whose title holds invalid UTF-8 answers 422 and is not created', async () => {
    const admin = await signIn(t.app, t.database, { role: 'admin' });
    const title = 'Broken bytes in the title';
    const template = `{"teamId":"${LOCAL_DEFAULT_TEAM.id}","title":"${title} \uFFFD"}`;
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/tracker/issues',
      headers: { ...JSON_HEADERS, ...admin.headers },
      payload: withBadBytes(template),
    });
    assertIssue(response, ['body', template.indexOf('\uFFFD')], 'json_invalid');
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/tracker/issues?limit=250', headers: admin.headers });
    assert.equal(list.statusCode, 200);
    const titles = list.json<{ issues: { title: string }[] }>().issues.map((issue) => issue.title);
    assert.ok(!titles.some((t) => t.startsWith(title)), titles.join(', '));
  });
});
