// The markets pages in headless Chromium: the ticker table searchable and sortable, the price shown
// moving when the venue's stream ticks, a pair's chart with an interval switch, its order book and
// figures; axe on each page, at 1440 px and 390 px.
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startBinanceWsFake, type BinanceWsFake } from '../../fakes/binance-ws.ts';
import { after, before, describe, it } from '../../helpers/suite.ts';
import { PATIENT, startMarket, waitFor, type MarketHarness } from '../market/market-fixtures.ts';
import { assertClean, assertFitsWidth, browserMissing, launchBrowser, openConsole, PHONE } from './console-browser.ts';

describe("the console's markets in a browser", { skip: browserMissing }, () => {
  let ws: BinanceWsFake;
  let m: MarketHarness;
  let base: string;
  let browser: Browser;

  before(async () => {
    ws = await startBinanceWsFake();
    // A loaded machine's first upstream read can take over the market tests' 1 s, and the page does not retry a list.
    m = await startMarket({ env: { BINANCE_WS_URL: ws.url, ...PATIENT } });
    base = await m.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
    await waitFor(() => ws.connections === 1, 5_000, 'the upstream stream');
  });
  after(async () => {
    await browser?.close();
    await m?.stop();
    await ws?.close();
  });

  it(
    'shows the ticker table without signing in, searchable ' + 'and sortable, and the price moves when the venue ticks',
    async () => {
      const c = await openConsole(browser, base);
      const { page } = c;
      try {
        await page.goto('/console');
        const table = page.getByRole('table', { name: '24 h tickers, prices live' });
        const btc = table.getByRole('row').filter({ has: page.getByRole('link', { name: 'BTC/USDT' }) });
        await btc.waitFor();
        assert.equal(await table.getByRole('columnheader').count(), 6);

        ws.setPrice('BTCUSDT', '71000.5');
        // The browser's stream may still be opening: push until the new price is on the page.
        const shown = btc.locator('.price');
        for (let i = 0; i < 50 && (await shown.innerText()) !== '71,000.5'; i += 1) {
          ws.push(['BTCUSDT']);
          await page.waitForTimeout(200);
        }
        assert.equal(await shown.innerText(), '71,000.5');
        ws.setPrice('BTCUSDT', '70123.25');
        ws.push(['BTCUSDT']);
        await page.waitForFunction(
          () => document.querySelector('[data-symbol="BTCUSDT"]')?.textContent === '70,123.25',
          null,
          { timeout: 5_000 },
        );

        // Search narrows the rows; sorting by pair puts them in order.
        await page.getByLabel('Search pairs').fill('eth');
        await page.waitForFunction(() =>
          [...document.querySelectorAll('table caption')].some((c) => c.textContent === '24 h tickers, prices live'),
        );
        const pairs = async () => table.locator('tbody tr td:first-child').allInnerTexts();
        await page.waitForFunction(() => !document.querySelector('[data-symbol="BTCUSDT"]'));
        for (const pair of await pairs()) assert.match(pair, /ETH/);
        await page.getByLabel('Search pairs').fill('');
        await table.getByRole('button', { name: 'Pair' }).click();
        const sorted = await pairs();
        assert.ok(sorted.length > 3, sorted.join());
        assert.deepEqual(sorted, [...sorted].sort().reverse(), 'first click sorts descending');
        assert.equal(await table.getByRole('columnheader', { name: /Pair/ }).getAttribute('aria-sort'), 'descending');

        await page.getByRole('heading', { name: 'Heatmap' }).waitFor();
        await page.getByRole('table', { name: 'Top gainers over 24 h' }).waitFor();
        await page.getByRole('table', { name: 'Trending pairs' }).waitFor();
        await assertClean(c, 'the markets page');
      } finally {
        await c.close();
      }
    },
  );

  it("shows a pair's candlesticks, switches the interval, and lists the order book and the 24 h figures", async () => {
    const c = await openConsole(browser, base);
    const { page } = c;
    try {
      await page.goto('/console/markets');
      await page.getByRole('link', { name: 'BTC/USDT' }).first().click();
      await page.getByRole('heading', { name: 'BTC/USDT', level: 1 }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/console/markets/BTCUSDT');
      await page.locator('.chart canvas').first().waitFor();
      const requested: string[] = [];
      page.on('request', (request) => {
        if (request.url().includes('/api/v1/market/ohlc'))
          requested.push(new URL(request.url()).searchParams.get('interval')!);
      });
      await page.getByRole('button', { name: '15m' }).click();
      await page.getByText('Candlesticks of BTCUSDT, 15m each').waitFor();
      await waitFor(() => requested.includes('15m'), 5_000, 'the 15m candles');
      assert.equal(await page.getByRole('button', { name: '15m' }).getAttribute('aria-pressed'), 'true');
      await page.getByRole('table', { name: 'Bids (buyers)' }).getByRole('row').nth(2).waitFor();
      await page.getByRole('table', { name: 'Asks (sellers)' }).getByRole('row').nth(2).waitFor();
      assert.match(await page.locator('.stats').innerText(), /24 h high/);
      await assertClean(c, 'the pair page');
    } finally {
      await c.close();
    }
  });

  it('fits a 390 px phone: markets and a pair page', async () => {
    const c = await openConsole(browser, base, { viewport: PHONE, colorScheme: 'dark' });
    try {
      await c.page.goto('/console/markets');
      await c.page.getByRole('link', { name: 'BTC/USDT' }).first().waitFor();
      await assertFitsWidth(c.page, 'the markets page at 390 px');
      await assertClean(c, 'the markets page at 390 px, dark');
      await c.page.goto('/console/markets/ETHUSDT');
      await c.page.locator('.chart canvas').first().waitFor();
      await assertFitsWidth(c.page, 'the pair page at 390 px');
      await assertClean(c, 'the pair page at 390 px, dark');
    } finally {
      await c.close();
    }
  });
});
