// Both streams in a real browser (headless Chromium from the distribution, driven by playwright-core):
// the browser's own EventSource, same origin, the account stream opened with a ticket.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from '../../helpers/suite.ts';
import { startBinanceWsFake, type BinanceWsFake } from '../../fakes/binance-ws.ts';
import { signIn, type TestUser } from '../../helpers/test-app.ts';
import { startMarket, waitFor, type MarketHarness } from '../market/market-fixtures.ts';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const missing = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) to run the browser test`;

describe('the streams in headless Chromium', { skip: missing }, () => {
  let ws: BinanceWsFake;
  let m: MarketHarness;
  let base: string;
  let user: TestUser;
  let browser: import('playwright-core').Browser;

  before(async () => {
    const { chromium } = await import('playwright-core');
    ws = await startBinanceWsFake();
    m = await startMarket({ env: { BINANCE_WS_URL: ws.url } });
    base = await m.app.listen({ host: '127.0.0.1', port: 0 });
    user = await signIn(m.app, m.database);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, timeout: 30_000 });
    await waitFor(() => ws.connections === 1, 5_000, 'the upstream stream');
  });
  after(async () => {
    await browser?.close();
    await m.stop();
    await ws.close();
  });

  it("receives the price snapshot and a moved price through the browser's EventSource", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${base}/openapi.json`);
      await page.evaluate(() => {
        const w = window as unknown as { got: { type: string; data: unknown }[] };
        w.got = [];
        const source = new EventSource('/api/v1/market/stream?symbols=BTCUSDT');
        for (const type of ['snapshot', 'price'])
          source.addEventListener(type, (e) => w.got.push({ type, data: JSON.parse((e as MessageEvent).data) }));
      });
      await page.waitForFunction(
        () => (window as unknown as { got: { type: string }[] }).got.some((e) => e.type === 'snapshot'),
        null,
        { timeout: 5_000 },
      );
      ws.setPrice('BTCUSDT', '71000.5');
      ws.push(['BTCUSDT']);
      await page.waitForFunction(
        () =>
          (window as unknown as { got: { type: string; data: { price?: number } }[] }).got.some(
            (e) => e.type === 'price' && e.data.price === 71000.5,
          ),
        null,
        { timeout: 5_000 },
      );
      const got = await page.evaluate(
        () => (window as unknown as { got: { type: string; data: { source?: string; price?: number } }[] }).got,
      );
      assert.equal(got[0]!.type, 'snapshot');
      assert.equal(got.find((e) => e.type === 'price' && e.data.price === 71000.5)!.data.source, 'stream');
    } finally {
      await page.close();
    }
  });

  it("opens the account stream with a ticket (no header) and receives the user's event", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${base}/openapi.json`);
      const ticket = await page.evaluate(async (authorization) => {
        const response = await fetch('/api/stream/ticket', { method: 'POST', headers: { authorization } });
        return ((await response.json()) as { ticket: string }).ticket;
      }, user.headers.authorization);
      await page.evaluate((t) => {
        const w = window as unknown as { events: { id: string; data: unknown }[]; opened: boolean };
        w.events = [];
        const source = new EventSource(`/api/stream?ticket=${t}`);
        source.onopen = () => (w.opened = true);
        source.addEventListener('balance.synced', (e) =>
          w.events.push({ id: (e as MessageEvent).lastEventId, data: JSON.parse((e as MessageEvent).data) }),
        );
      }, ticket);
      await page.waitForFunction(() => (window as unknown as { opened?: boolean }).opened === true, null, {
        timeout: 5_000,
      });
      await m.modules.streams.publisher.user(user.id, 'balance.synced', {
        exchange: 'binance',
        credential_id: crypto.randomUUID(),
        success: true,
        currencies_synced: 1,
        error_type: null,
      });
      await page.waitForFunction(() => (window as unknown as { events: unknown[] }).events.length === 1, null, {
        timeout: 5_000,
      });
      const [event] = await page.evaluate(
        () => (window as unknown as { events: { id: string; data: { type: string } }[] }).events,
      );
      assert.match(event!.id, /^\d+$/);
      assert.equal(event!.data.type, 'balance.synced');
    } finally {
      await page.close();
    }
  });
});
