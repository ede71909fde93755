// /docs (swagger-ui) on the console's origin (issue 37): a strict Content-Security-Policy that the page
// still works under, and a token pasted into Authorize kept in the page's memory only, never in
// localStorage where any script that ever ran on this origin could read it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { browserMissing, launchBrowser, openConsole } from '../../modules/console/console-browser.ts';

describe('/docs', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(async () => {
    await t.close();
  });

  const docsPage = async () => {
    let page = await t.app.inject({ method: 'GET', url: '/docs' });
    if (page.statusCode === 302) page = await t.app.inject({ method: 'GET', url: String(page.headers.location) });
    return page;
  };

  it('answers its page and files with a strict Content-Security-Policy; the API keeps none', async () => {
    const page = await docsPage();
    assert.equal(page.statusCode, 200);
    const csp = String(page.headers['content-security-policy']);
    for (const directive of [
      "default-src 'none'",
      "script-src 'self'",
      "connect-src 'self'",
      "object-src 'none'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
    ])
      assert.ok(csp.split('; ').includes(directive), `${directive} in ${csp}`);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https:|\*/, 'nothing inline, evaluated or from elsewhere');
    assert.match(csp, /(^|; )style-src 'self' 'sha256-[A-Za-z0-9+/]{43}='(;|$)/, 'one inline style, by its hash');
    const initializer = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    assert.equal(initializer.statusCode, 200);
    assert.equal(initializer.headers['content-security-policy'], csp);
    assert.match(initializer.body, /"persistAuthorization":false/);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/openapi.json' })).headers['content-security-policy'],
      undefined,
    );
  });

  describe('in Chromium', { skip: browserMissing }, () => {
    let browser: Browser;
    let base: string;
    let user: TestUser;
    before(async () => {
      base = await t.app.listen({ host: '127.0.0.1', port: 0 });
      browser = await launchBrowser();
      user = await signIn(t.app, t.database);
    });
    after(async () => {
      await browser?.close();
    });

    it('works under its CSP: an operation tried with a pasted token, which is never stored', async () => {
      const c = await openConsole(browser, base);
      try {
        const { page } = c;
        // Swagger UI reads an OpenAPI 3.1 document through its ApiDOM resolver, the whole document on
        // every step: several seconds of Chromium's CPU on a 2-core machine before the page first
        // answers, and again to open one operation (decision 470), twice that while other test files
        // share the cores. This test is about the CSP and where the token goes, not the page's speed,
        // so its steps get a bound that load cannot reach.
        page.setDefaultTimeout(60_000);
        await page.goto('/docs');
        await page.getByRole('button', { name: 'Authorize' }).first().click();
        await page.locator('.dialog-ux input').first().fill(user.token);
        await page.locator('.dialog-ux button.authorize').first().click();
        await page.locator('.dialog-ux').getByRole('button', { name: 'Remove authorization' }).first().waitFor();
        await page.locator('.dialog-ux button.btn-done').first().click();

        const operation = page.locator('#operations-auth-getCurrentUser');
        await operation.locator('.opblock-summary').click();
        await operation.getByRole('button', { name: 'Try it out' }).click();
        const answered = page.waitForResponse((response) => response.url().endsWith('/api/auth/me'));
        await operation.getByRole('button', { name: 'Execute' }).click();
        assert.equal((await answered).status(), 200, 'the pasted token was sent');
        await operation.locator('.responses-wrapper .live-responses-table').getByText(user.email).first().waitFor();

        const stored = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }));
        assert.ok(!stored.includes(user.token), 'the pasted token is in neither localStorage nor sessionStorage');
        assert.deepEqual(await c.problems(), [], 'no CSP violation and no script error');
      } finally {
        await c.close();
      }
    });
  });
});
