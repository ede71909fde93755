// The console's orders (placed once per click, their fills, a cancel), paper account, trading limits and halt,
// signal hooks and notifications (issue 40, point 5) in headless Chromium: a hook made
// shows its URL and secret once with copy buttons, an alert posted to it is counted, notification
// choices are saved and a test is sent; axe-clean, and fitting a 390 px phone.
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startSmtpFake, type SmtpFake } from '../../fakes/smtp.ts';
import { alertRequest } from '../../fakes/tradingview.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { after, before, describe, it } from '../../helpers/suite.ts';
import {
  assertClean,
  assertFitsWidth,
  browserMissing,
  launchBrowser,
  openConsole,
  PHONE,
  signInAs,
  type ConsolePage,
  waitForOrExplain,
} from './console-browser.ts';

describe("the console's signal hooks and notifications", { skip: browserMissing }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let user: TestUser;
  let c: ConsolePage;
  let smtp: SmtpFake;

  before(async () => {
    // Paper orders offline: their market, last price and book come from the simulated source. No price
    // band, so that a limit far below the market rests.
    smtp = await startSmtpFake();
    t = await buildTestApp({
      env: { MARKET_DATA_SOURCE: 'simulated', TRADING_PRICE_BAND_PERCENT: 'none', SMTP_URL: smtp.url },
    });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
    user = await signIn(t.app, t.database);
    c = await openConsole(browser, base, { viewport: PHONE });
    await signInAs(c.page, user, '/console/sign-in');
    await c.page
      .getByRole('heading', { name: 'Markets' })
      .or(c.page.getByRole('heading', { name: 'Account' }))
      .first()
      .waitFor();
  });
  after(async () => {
    await c?.close();
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  it('makes a hook, shows its URL and secret once with copy buttons; the secret shown is the one the hook takes', async () => {
    await c.page.goto('/console/account/signals');
    await c.page.getByLabel('Hook name').fill('BTC trend');
    await c.page.getByRole('button', { name: 'Make hook' }).click();
    await c.page.getByRole('button', { name: 'Copy the secret' }).waitFor();
    await c.page.getByRole('button', { name: 'Copy the webhook URL' }).waitFor();
    const secret = (await c.page.locator('.secret').nth(1).textContent())!.replace(/\s*Copy(ied)?$/, '').trim();
    assert.match(secret, /^tvs_/);
    const { hooks } = (await t.app.inject({ method: 'GET', url: '/api/signals/hooks', headers: user.headers })).json<{
      hooks: { id: string }[];
    }>();
    const refused = await t.app.inject({
      method: 'POST',
      url: `/api/signals/tradingview/${hooks[0]!.id}`,
      ...alertRequest('SECRET=wrong\nSYMBOL=BTCUSDT\nSIGNAL=BUY\nVOLUME=1'),
    });
    assert.equal(refused.statusCode, 401);
    // The secret the page showed is the one the hook takes: the alert passes every check.
    const passed = await t.app.inject({
      method: 'POST',
      url: `/api/signals/tradingview/${hooks[0]!.id}`,
      ...alertRequest(`SECRET=${secret}\nSYMBOL=BTCUSDT\nSIGNAL=BUY\nVOLUME=1`),
    });
    assert.notEqual(passed.statusCode, 401, passed.body);
    await assertClean(c, 'the signal hooks page');
    await assertFitsWidth(c.page, 'the signal hooks page');
  });

  it('verifies the address with a mailed code, saves notification choices and sends a test', async () => {
    await c.page.goto('/console/account/notifications');
    // Nothing is mailed to an unverified address (decision 840): the page offers to prove it (decision 845).
    const unverified = c.page.getByText('Your address is not verified');
    await unverified.waitFor();
    await c.page.getByRole('button', { name: 'Mail me a code' }).click();
    await c.page.getByLabel('Verification code').waitFor();
    await t.platform.outbox.drain();
    const mail = smtp.received.find(
      (m) => m.to.includes(user.email) && m.headers.subject === 'Verify your e-mail address',
    );
    const code = /code is:\r?\n\r?\n([A-Za-z0-9_-]{43})\r?\n/.exec(mail?.raw ?? '')?.[1];
    assert.ok(code, 'the code mailed');
    await c.page.getByLabel('Verification code').fill(code);
    await c.page.getByRole('button', { name: 'Verify' }).click();
    await unverified.waitFor({ state: 'detached' });
    await c.page.getByLabel('order.filled').check();
    await c.page.getByRole('button', { name: 'Save' }).click();
    await c.page.getByRole('button', { name: 'Send a test' }).click();
    await c.page.getByText('A test was queued on 1 channel(s).').waitFor();
    const saved = (
      await t.app.inject({ method: 'GET', url: '/api/notifications/preferences', headers: user.headers })
    ).json<{ events: string[] }>();
    assert.ok(saved.events.includes('order.filled'));
    await assertClean(c, 'the notifications page');
    await assertFitsWidth(c.page, 'the notifications page');
  });

  it('lists the orders, newest first', async () => {
    await c.page.goto('/console/account/orders');
    await c.page.getByRole('table', { name: /Your orders, newest first/ }).waitFor();
    await assertClean(c, 'the orders page');
    await assertFitsWidth(c.page, 'the orders page');
  });

  it('places a paper order once per click, shows its fills, and cancels a resting one', async () => {
    const orders = async () =>
      (await t.app.inject({ method: 'GET', url: '/api/orders', headers: user.headers })).json<{
        orders: { id: string; type: string; status: string }[];
      }>().orders;
    const before = (await orders()).length;
    await c.page.goto('/console/account/orders');
    // The page has settled (signed in, its list shown) before its form is used.
    await waitForOrExplain(c, c.page.getByRole('table', { name: /Your orders, newest first/ }));
    await c.page.getByLabel('Amount').fill('0.01');
    const sent: string[] = [];
    c.page.on('request', (r) => {
      if (r.url().endsWith('/api/orders') && r.method() === 'POST') sent.push(r.headers()['idempotency-key'] ?? '');
    });
    // One click, then its answer awaited: a click that sent nothing fails here, saying so.
    const place = async (placed: RegExp) => {
      const [answer] = await Promise.all([
        c.page.waitForResponse((r) => r.url().endsWith('/api/orders') && r.request().method() === 'POST'),
        c.page.getByRole('button', { name: 'Place order' }).click(),
      ]);
      assert.equal(answer.status(), 201, await answer.text());
      await waitForOrExplain(c, c.page.getByText(placed));
    };
    await place(/Placed: buy 0\.01 BTC\/USDT market, filled/);
    const market = (await orders()).filter((o) => o.type === 'market');
    assert.equal((await orders()).length, before + 1, 'one order for one click');
    assert.match(sent[0] ?? '', /^[0-9a-f-]{36}$/, 'the order carried an Idempotency-Key');

    await c.page.getByRole('button', { name: `Fills of order ${market[0]!.id}` }).click();
    const fills = c.page.getByRole('table', { name: /Fills of buy 0\.01 BTC\/USDT market/ });
    await fills.waitFor();
    assert.ok((await fills.locator('tbody tr').count()) >= 1, 'the filled order lists its fills');
    await assertClean(c, 'the orders page with fills');

    // A limit far below the market rests; the next order gets a key of its own.
    await c.page.getByLabel('Order type').selectOption('limit');
    await c.page.getByLabel('Limit price').fill('1000');
    await place(/Placed: buy 0\.01 BTC\/USDT limit @ 1000, open/);
    assert.equal(sent.length, 2);
    assert.notEqual(sent[1], sent[0], 'each order has its own key');
    const resting = (await orders()).find((o) => o.type === 'limit')!;
    assert.equal(resting.status, 'open');
    await c.page.getByRole('button', { name: `Cancel order ${resting.id}` }).click();
    await c.page.getByRole('button', { name: `Cancel order ${resting.id}` }).waitFor({ state: 'detached' });
    assert.equal((await orders()).find((o) => o.id === resting.id)!.status, 'canceled');
    await assertFitsWidth(c.page, 'the orders page with its form');
  });

  it('shows the paper account, and halts and resumes trading from the limits page', async () => {
    await c.page.goto('/console/account/paper');
    await c.page.getByRole('table', { name: 'Paper balances' }).waitFor();
    await assertClean(c, 'the paper account page');
    await assertFitsWidth(c.page, 'the paper account page');

    await c.page.goto('/console/account/trading');
    await c.page.getByLabel('Reason for halting').fill('coffee break');
    await c.page.getByRole('button', { name: 'Halt trading' }).click();
    await c.page.getByText('Halted by user: coffee break').waitFor();
    await assertClean(c, 'the trading limits page');
    await assertFitsWidth(c.page, 'the trading limits page');
    await c.page.getByRole('button', { name: 'Resume trading' }).click();
    await c.page.getByText('Trading is on.').waitFor();
    await c.page.getByLabel('Orders per minute').fill('30');
    await Promise.all([
      c.page.waitForResponse((r) => r.url().endsWith('/api/trading/limits') && r.request().method() === 'PUT'),
      c.page.getByRole('button', { name: 'Save limits' }).click(),
    ]);
    const limits = (await t.app.inject({ method: 'GET', url: '/api/trading/limits', headers: user.headers })).json();
    assert.equal(limits.own.max_orders_per_minute, 30);
  });
});
