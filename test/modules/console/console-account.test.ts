// The account pages in headless Chromium, against the loopback Binance fake: a user with two-factor on
// signs in with a TOTP code, checks and adds a key (shown masked), syncs its balance and trades and
// sees them listed; API tokens; another signs in with a recovery code; a third enrolls and sees the
// QR code; axe on every account page.
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import type { FakeAccount } from '../../fakes/binance.ts';
import { signIn, buildTestApp, type TestApp } from '../../helpers/test-app.ts';
import { codeOf } from '../../helpers/totp-reference.ts';
import { after, before, describe, it } from '../../helpers/suite.ts';
import { addAccount, startVenueFakes, type VenueFakes } from '../exchange/venue-fakes.ts';
import {
  assertClean,
  assertFitsWidth,
  browserMissing,
  launchBrowser,
  openConsole,
  PHONE,
  signInAs,
  twoFactorUser,
  type ConsolePage,
  type TwoFactorUser,
} from './console-browser.ts';

describe("the console's account pages in a browser", { skip: browserMissing }, () => {
  let fakes: VenueFakes;
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let user: TwoFactorUser;
  let account: FakeAccount;
  let c: ConsolePage;

  before(async () => {
    fakes = await startVenueFakes();
    t = await buildTestApp({ env: fakes.env() });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
    user = await twoFactorUser(t);
    account = addAccount(fakes.binance);
    c = await openConsole(browser, base);
    await signInAs(c.page, user, '/console/sign-in');
    // The enable spent this step's code; the next step's is accepted (one step of drift).
    await c.page.getByLabel('Authentication code').fill(codeOf(user.secret, new Date(Date.now() + 30_000)));
    await c.page.getByRole('button', { name: 'Verify' }).click();
    await c.page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
  });
  after(async () => {
    await c?.close();
    await browser?.close();
    await t?.close();
    await fakes?.close();
  });

  it('checks and adds a Binance key, shows it masked, syncs balance and trades, and lists the balance', async () => {
    const { page } = c;
    await page.getByRole('navigation', { name: 'Account sections' }).getByRole('link', { name: 'Exchanges' }).click();
    await page.getByRole('heading', { name: 'Your exchange keys' }).waitFor();
    await page.getByLabel('Exchange', { exact: true }).selectOption('binance');
    await page.getByLabel('API key').fill(account.apiKey);
    await page.getByLabel('API secret').fill(account.secret);
    await page.getByRole('button', { name: 'Check key' }).click();
    await page.getByText(/^The key works/).waitFor();
    await page.getByRole('button', { name: 'Add key' }).click();

    const keys = page.getByRole('table', { name: 'Exchange keys' });
    const row = keys.getByRole('row').filter({ hasText: 'binance' });
    await row.waitFor();
    const masked = await row.locator('code').innerText();
    await page.waitForFunction(() => !document.querySelector('table code')?.textContent?.includes('…'));
    const maskedNow = await row.locator('code').innerText();
    assert.notEqual(maskedNow, account.apiKey, `${masked} / ${maskedNow}`);
    assert.ok(maskedNow.length > 4 && maskedNow.includes(account.apiKey.slice(-4)), maskedNow);
    assert.equal((await page.content()).includes(account.secret), false, 'the secret is nowhere in the page');
    assert.equal(await page.getByLabel('API key').inputValue(), '', 'the form is emptied');

    // Checking the stored key again updates its validation in the list.
    await page.getByLabel('API key').fill(account.apiKey);
    await page.getByLabel('API secret').fill(account.secret);
    await page.getByRole('button', { name: 'Check key' }).click();
    await page.getByText('1 of your stored keys hold it and were updated').waitFor();
    await row.getByText('valid', { exact: true }).waitFor();

    await page.getByRole('button', { name: 'Sync balance of Default' }).click();
    await page.getByText('Balance synced: 3 currencies').waitFor();
    await page.getByRole('button', { name: 'Sync trades of Default' }).click();
    await page.getByText(/^Trades synced: \d+ new/).waitFor();
    // The account stream brings the same news.
    await page
      .getByRole('region', { name: 'Live account events' })
      .getByText(/balance of binance synced \(3 currencies\)/)
      .waitFor();
    await assertClean(c, 'the exchanges page');

    await page.getByRole('link', { name: 'Balances' }).click();
    const balances = page.getByRole('table', { name: 'Balances on binance' });
    const btc = balances.getByRole('row').filter({ hasText: 'BTC' });
    await btc.waitFor();
    assert.deepEqual(await btc.getByRole('cell').allInnerTexts(), ['BTC', '0.12345678', '0.1', '0.22345678']);
    assert.equal(await balances.getByRole('row').count(), 4, 'a header and BTC, ETH, USDT (XRP is zero)');
    await assertClean(c, 'the balances page');

    await page.getByRole('link', { name: 'Trades' }).click();
    const trades = page.getByRole('table', { name: 'Your trades, newest first' });
    await trades.getByRole('row').nth(1).waitFor();
    assert.equal(await trades.getByRole('columnheader').count(), 7);
    await page.getByText(/^Trades 1–\d+ of \d+$/).waitFor();
    await page.getByLabel('Pair').fill('NOPE/USDT');
    await page.getByLabel('Pair').press('Enter');
    await page.getByText('No trades match.').waitFor();
    await assertClean(c, 'the trades page');

    await page.getByRole('link', { name: 'Portfolio' }).click();
    await page
      .getByRole('table', { name: /^Holdings as of/ })
      .getByRole('row')
      .filter({ hasText: 'BTC' })
      .waitFor();
    await assertClean(c, 'the portfolio page');
  });

  it(
    "makes an API token shown once (the sign-in's second " + 'factor is recent enough), and shows two-factor on',
    async () => {
      const { page } = c;
      await page.getByRole('link', { name: 'API tokens' }).click();
      await page.getByLabel('Token name').fill('my bot');
      await page.getByRole('button', { name: 'Make token' }).click();
      const secret = page.locator('p.secret');
      await secret.waitFor();
      assert.match(await secret.innerText(), /^tpk_/);
      await page
        .getByRole('table', { name: /Your API tokens/ })
        .getByRole('row')
        .filter({ hasText: 'my bot' })
        .waitFor();
      await assertClean(c, 'the API tokens page');

      await page.getByRole('link', { name: 'Security' }).click();
      await page.getByText('Two-factor authentication is on.').waitFor();
      await page.getByRole('button', { name: 'Turn off two-factor' }).waitFor();
      await assertClean(c, 'the security page, two-factor on');
    },
  );

  it('starts two-factor enrollment for an account without it, showing the QR code', async () => {
    const other = await signIn(t.app, t.database);
    const fresh = await openConsole(browser, base);
    try {
      const { page } = fresh;
      await signInAs(page, other, '/console/account/security');
      await page.getByText('Two-factor authentication is off.').waitFor();
      // Exact: the passkeys' form asks for the password too while two-factor is off.
      await page.getByLabel('Password', { exact: true }).fill(other.password);
      await page.getByRole('button', { name: 'Set up two-factor' }).click();
      const qr = page.getByRole('img', { name: 'QR code of the two-factor secret' });
      await qr.waitFor();
      await page.waitForFunction(
        () => ((document.querySelector('img.qr') as HTMLImageElement | null)?.naturalWidth ?? 0) > 0,
      );
      assert.match((await qr.getAttribute('src')) ?? '', /^data:image\/svg\+xml;base64,/);
      assert.match(await page.getByLabel('Two-factor secret').innerText(), /^[A-Z2-7]{16,}$/);
      await assertClean(fresh, 'the security page with the QR code');
    } finally {
      await fresh.close();
    }
  });

  it('fits a 390 px phone in the dark theme', async () => {
    const phone = await openConsole(browser, base, { viewport: PHONE, colorScheme: 'dark' });
    try {
      // A second profile signs in on its own, with a recovery code (this step's TOTP code is spent).
      await signInAs(phone.page, user, '/console/account/exchanges');
      await phone.page.getByRole('button', { name: 'Use a recovery code' }).click();
      await phone.page.getByLabel('Recovery code').fill(user.recoveryCodes[0]!);
      await phone.page.getByRole('button', { name: 'Verify' }).click();
      await phone.page.getByRole('heading', { name: 'Your exchange keys' }).waitFor();
      await phone.page.getByRole('table', { name: 'Exchange keys' }).getByRole('row').nth(1).waitFor();
      await assertFitsWidth(phone.page, 'the exchanges page at 390 px');
      await assertClean(phone, 'the exchanges page at 390 px, dark');
      await phone.page.getByRole('link', { name: 'Security' }).click();
      await phone.page.getByText('Two-factor authentication is on.').waitFor();
      await assertFitsWidth(phone.page, 'the security page at 390 px');
      await assertClean(phone, 'the security page at 390 px, dark');
    } finally {
      await phone.close();
    }
  });
});
