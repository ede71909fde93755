// The console in headless Chromium: signing in with a TOTP code, the session kept over a reload from
// the HttpOnly cookie only, signing out; the keyboard alone; the navigation's names, axe, both themes and a
// phone's width.
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { codeOf } from '../../helpers/totp-reference.ts';
import { signIn } from '../../helpers/test-app.ts';
import { after, before, describe, it } from '../../helpers/suite.ts';
import { startMarket, type MarketHarness } from '../market/market-fixtures.ts';
import {
  assertClean,
  assertFitsWidth,
  browserMissing,
  launchBrowser,
  openConsole,
  PHONE,
  twoFactorUser,
  type TwoFactorUser,
  waitForOrExplain,
} from './console-browser.ts';

describe('signing in to the console in a browser', { skip: browserMissing }, () => {
  let m: MarketHarness;
  let base: string;
  let browser: Browser;
  let user: TwoFactorUser;

  before(async () => {
    m = await startMarket();
    base = await m.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
    user = await twoFactorUser(m);
  });
  after(async () => {
    await browser?.close();
    await m?.stop();
  });

  it(
    'works from the keyboard alone: Tab reaches the fields, Enter signs in, the navigation ' +
      'takes focus and Enter follows it',
    async () => {
      const plain = await signIn(m.app, m.database);
      const c = await openConsole(browser, base);
      const { page } = c;
      /** Presses Tab from the top of the page until `target` has focus; false when it never does. */
      const tabTo = async (target: ReturnType<typeof page.getByLabel>) => {
        await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
        for (let i = 0; i < 40; i++) {
          await page.keyboard.press('Tab');
          if (await target.evaluate((element) => element === document.activeElement)) return true;
        }
        return false;
      };
      try {
        await page.goto('/console/account');
        const email = page.getByLabel('Email');
        await email.waitFor();
        assert.ok(await tabTo(email), 'Tab reaches the e-mail field');
        await page.keyboard.type(plain.email);
        await page.keyboard.press('Tab');
        assert.ok(
          await page.getByLabel('Password').evaluate((element) => element === document.activeElement),
          'the password field comes next',
        );
        await page.keyboard.type(plain.password);
        await page.keyboard.press('Enter');
        await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
        const markets = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Markets' });
        assert.ok(await tabTo(markets), 'Tab reaches the Markets link');
        await page.keyboard.press('Enter');
        await page.getByRole('heading', { name: 'Markets', level: 1 }).waitFor();
        assert.deepEqual(await c.problems(), []);
      } finally {
        await c.close();
      }
    },
  );

  it('signs in with e-mail, password and a TOTP code, keeps the session over a reload, and signs out', async () => {
    const c = await openConsole(browser, base);
    const { page, context } = c;
    try {
      await page.goto('/console/account');
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await assertClean(c, 'the sign-in page');
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      // The enable spent this step's code; the next step's is accepted (one step of drift).
      await page.getByLabel('Authentication code').fill(codeOf(user.secret, new Date(Date.now() + 30_000)));
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/console/account');
      const nav = page.getByRole('navigation', { name: 'Main' });
      assert.equal(await nav.getByRole('link', { name: 'Markets' }).count(), 1);
      assert.equal(await nav.getByRole('link', { name: 'Account' }).count(), 1);
      assert.equal(await nav.getByRole('link', { name: 'Admin' }).count(), 0, 'no admin link for a user');
      await page.getByText(user.email).first().waitFor();

      // The refresh token is a cookie no script can read, and so is the device cookie the completed
      // sign-in set (decision 196); nothing of the session is in storage.
      const cookies = await context.cookies();
      assert.deepEqual(
        cookies
          .map((k) => ({ name: k.name, path: k.path, httpOnly: k.httpOnly, sameSite: k.sameSite }))
          .sort((a, b) => a.name.localeCompare(b.name)),
        [
          { name: 'tp_console_refresh', path: '/api/console/session', httpOnly: true, sameSite: 'Strict' },
          { name: 'tp_device', path: '/api', httpOnly: true, sameSite: 'Strict' },
        ],
      );
      const stored = await page.evaluate(() => ({
        cookie: document.cookie,
        local: JSON.stringify(localStorage),
        session: JSON.stringify(sessionStorage),
      }));
      assert.equal(stored.cookie, '');
      assert.doesNotMatch(stored.local + stored.session, /eyJ|tp_console_refresh/);

      await page.reload();
      await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
      await page.getByText(user.email).first().waitFor();
      await assertClean(c, 'the account page after a reload');

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
      // The session's cookie is gone; the device cookie stays: this browser is still one the owner used.
      assert.deepEqual(
        (await context.cookies()).map((k) => k.name),
        ['tp_device'],
      );
      await page.goto('/console/account');
      await waitForOrExplain(c, page.getByLabel('Email'));
    } finally {
      await c.close();
    }
  });

  it('leaves "Loading…" when the session is settled before the page has subscribed to it', async () => {
    const c = await openConsole(browser, base);
    try {
      // A first paint a second late, as on a busy machine: Preact runs effects (the page's subscription
      // to the session) on the next animation frame, or after 35 ms without one; both are pushed out,
      // while the refresh without a cookie is refused within milliseconds.
      await c.context.addInitScript(() => {
        const later = window.setTimeout;
        window.requestAnimationFrame = () => 0;
        window.setTimeout = ((run: () => void, ms?: number) => later(run, ms === 35 ? 1_000 : ms)) as typeof setTimeout;
      });
      await c.page.goto('/console/account');
      await waitForOrExplain(c, c.page.getByLabel('Email'));
      assert.equal(await c.page.getByText('Loading…').count(), 0);
    } finally {
      await c.close();
    }
  });

  it('says why a wrong password is refused, in the page', async () => {
    const c = await openConsole(browser, base);
    try {
      await c.page.goto('/console/sign-in');
      await c.page.getByLabel('Email').fill(user.email);
      await c.page.getByLabel('Password').fill('wrong-password-123');
      await c.page.getByRole('button', { name: 'Sign in', exact: true }).click();
      const alert = c.page.getByRole('alert');
      await alert.waitFor();
      assert.match(await alert.innerText(), /invalid|incorrect|wrong/i);
      await assertClean(c, 'the sign-in page with an error');
    } finally {
      await c.close();
    }
  });

  it('fits a 390 px phone in the dark theme, and the toggle switches to light', async () => {
    const c = await openConsole(browser, base, { viewport: PHONE, colorScheme: 'dark' });
    try {
      await c.page.goto('/console/sign-in');
      await c.page.getByLabel('Email').waitFor();
      assert.equal(await c.page.evaluate(() => document.documentElement.dataset.theme), 'dark');
      await assertFitsWidth(c.page, 'the sign-in page at 390 px');
      await assertClean(c, 'the sign-in page, dark, 390 px');
      await c.page.getByRole('button', { name: 'Dark theme' }).click();
      await c.page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
      assert.equal(await c.page.getByRole('button', { name: 'Dark theme' }).getAttribute('aria-pressed'), 'false');
      const background = await c.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.equal(background, 'rgb(246, 247, 249)');
      await assertClean(c, 'the sign-in page, light, 390 px');
    } finally {
      await c.close();
    }
  });
});
