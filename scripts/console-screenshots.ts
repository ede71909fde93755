// Screenshots of the console's main pages for docs/console/ and the README: the service built as the
// tests build it, against the loopback venue fakes (nothing leaves this machine), driven in Debian's
// headless Chromium. Run: npm run console:screenshots
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { PROJECT_ROOT } from '../src/platform/project-root.ts';
import { startBinanceWsFake } from '../test/fakes/binance-ws.ts';
import { startCoinGeckoFake } from '../test/fakes/coingecko.ts';
import { buildTestApp, signIn } from '../test/helpers/test-app.ts';
import { addAccount, startVenueFakes } from '../test/modules/exchange/venue-fakes.ts';

const OUT = path.join(PROJECT_ROOT, 'docs', 'console');
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

const fakes = await startVenueFakes();
const coingecko = await startCoinGeckoFake();
const ws = await startBinanceWsFake({ intervalMs: 1000 });
const t = await buildTestApp({ env: { ...fakes.env(), COINGECKO_API_URL: coingecko.url, BINANCE_WS_URL: ws.url } });
const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: FLAGS });
try {
  mkdirSync(OUT, { recursive: true });
  const admin = await signIn(t.app, t.database, { role: 'admin', email: 'ops@example.com' });
  const keys = addAccount(fakes.binance);
  const headers = admin.headers;
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/exchange/credentials',
    headers,
    payload: { exchange_name: 'binance', credential_name: 'Main', api_key: keys.apiKey, api_secret: keys.secret },
  });
  if (created.statusCode !== 201) throw new Error(created.body);
  await t.app.inject({ method: 'POST', url: '/api/exchange/balance/sync?exchange=binance', headers });
  await t.app.inject({ method: 'POST', url: '/api/exchange/trades/sync?exchange=binance', headers });
  for (const [title, priority] of [
    ['Rotate the Anthropic key', 'high'],
    ['Review venue budget alerts', 'medium'],
    ['Backfill ETH candles', 'low'],
    ['Triage failed webhook', 'critical'],
  ] as const) {
    await t.app.inject({
      method: 'POST',
      url: '/api/admin/command-center/tasks',
      headers,
      payload: { title, priority },
    });
  }

  const shoot = async (
    file: string,
    url: string,
    ready: (page: import('playwright-core').Page) => Promise<unknown>,
    viewport = { width: 1440, height: 1000 },
  ) => {
    const context = await browser.newContext({
      baseURL: base,
      viewport,
      locale: 'en-US',
      timezoneId: 'UTC',
      colorScheme: 'light',
    });
    const page = await context.newPage();
    await page.goto('/console/sign-in');
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
    await page.goto(url);
    await ready(page);
    await page.waitForTimeout(1500);
    await page.screenshot({ path: path.join(OUT, file), fullPage: false });
    await context.close();
    process.stdout.write(`wrote docs/console/${file}\n`);
  };
  await shoot('markets.png', '/console/markets', (p) =>
    p.getByRole('table', { name: '24 h tickers, prices live' }).getByRole('row').nth(5).waitFor(),
  );
  await shoot('pair-chart.png', '/console/markets/BTCUSDT', (p) => p.locator('.chart canvas').first().waitFor());
  await shoot('account.png', '/console/account', (p) =>
    p
      .getByRole('table', { name: /^Holdings as of/ })
      .getByRole('row')
      .nth(1)
      .waitFor(),
  );
  await shoot('account-exchanges.png', '/console/account/exchanges', (p) =>
    p.getByRole('table', { name: 'Exchange keys' }).getByRole('row').nth(1).waitFor(),
  );
  await shoot('admin.png', '/console/admin', (p) =>
    p.getByRole('table', { name: 'Agents and their status' }).waitFor(),
  );
  await shoot('admin-command-center.png', '/console/admin/command-center', (p) =>
    p.getByRole('region', { name: 'To do' }).getByRole('listitem').nth(2).waitFor(),
  );
  await shoot(
    'markets-phone.png',
    '/console/markets',
    (p) => p.getByRole('table', { name: '24 h tickers, prices live' }).getByRole('row').nth(3).waitFor(),
    { width: 390, height: 844 },
  );
} finally {
  await browser.close();
  await t.close();
  await ws.close();
  await coingecko.close();
  await fakes.close();
}
process.exit(0);
