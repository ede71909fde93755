// What the console's browser tests share: one headless Chromium (Debian's, driven by playwright-core)
// and one app per test file, pages that record every CSP violation and script error, and axe-core; and,
// with the console's session tests, a user who turned two-factor on.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { after, before } from '../../helpers/suite.ts';
import { codeOf } from '../../helpers/totp-reference.ts';
import { startVenueFakes, type VenueFakes } from '../exchange/venue-fakes.ts';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-quic',
  '--disable-sync',
];
export const browserMissing = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) to run the browser tests`;

/**
 * Chromium, started with ccxt loaded: the app loads ccxt on its first use of a venue (a paper order,
 * the supported venues), about a second of CPU on this process's event loop, which also reads
 * Chromium's answers (a click is done only once its acknowledgement is read here). On a loaded
 * machine that second grew past a click's timeout; loaded while Chromium starts, it stalls no click.
 */
export async function launchBrowser(): Promise<Browser> {
  const [{ chromium }] = await Promise.all([import('playwright-core'), import('ccxt')]);
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS, timeout: 30_000 });
}

export const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1440, height: 900 };

export interface ConsolePage {
  context: BrowserContext;
  page: Page;
  /** CSP violations and uncaught script errors seen so far. */
  problems(): Promise<string[]>;
  /** The page's last requests, answers, navigations and console messages, oldest first: what a failure says. */
  journal(): string;
  close(): Promise<void>;
}

const JOURNAL_LINES = 60;

/**
 * Waits for `locator` to be visible; when it does not appear, the error also says where the page is,
 * what it shows and its journal, so that a failure seen once (a busy CI machine) can be understood.
 */
export async function waitForOrExplain(console: ConsolePage, locator: Locator): Promise<void> {
  try {
    await locator.waitFor();
  } catch (error) {
    const shown = await console.page
      .locator('body')
      .innerText({ timeout: 2_000 })
      .catch((reason: Error) => `(unreadable: ${reason.message})`);
    const what = error instanceof Error ? error.message : String(error);
    throw new Error(
      `${what}\nat ${console.page.url()}, showing:\n${shown.slice(0, 1_000)}\njournal:\n${console.journal()}`,
      { cause: error },
    );
  }
}

/** A fresh browser profile (its own cookies) on the console, in en-US so numbers read 71,000.5. */
export async function openConsole(
  browser: Browser,
  base: string,
  options: { viewport?: { width: number; height: number }; colorScheme?: 'light' | 'dark' } = {},
): Promise<ConsolePage> {
  const context = await browser.newContext({
    locale: 'en-US',
    timezoneId: 'UTC',
    viewport: options.viewport ?? DESKTOP,
    colorScheme: options.colorScheme ?? 'light',
    baseURL: base,
  });
  const errors: string[] = [];
  // Registered before any page script runs, so no violation goes unseen.
  await context.addInitScript(() => {
    const w = window as unknown as { cspViolations: string[] };
    w.cspViolations = [];
    document.addEventListener('securitypolicyviolation', (event) =>
      w.cspViolations.push(`${event.violatedDirective} ${event.blockedURI}`),
    );
  });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const journal: string[] = [];
  const note = (line: string) => {
    journal.push(`${new Date().toISOString().slice(11, 23)} ${line}`);
    if (journal.length > JOURNAL_LINES) journal.shift();
  };
  page.on('request', (request) => note(`> ${request.method()} ${request.url()}`));
  page.on('response', (response) => note(`< ${response.status()} ${response.url()}`));
  page.on('requestfailed', (request) => note(`x ${request.url()} ${request.failure()?.errorText ?? ''}`));
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) note(`navigated to ${frame.url()}`);
  });
  page.on('console', (message) => note(`console ${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('dialog', (dialog) => void dialog.accept());
  return {
    context,
    page,
    async problems() {
      const csp = await page
        .evaluate(() => (window as unknown as { cspViolations?: string[] }).cspViolations ?? [])
        .catch(() => []);
      return [...errors, ...csp.map((v) => `CSP violation: ${v}`)];
    },
    journal: () => journal.join('\n'),
    close: () => context.close(),
  };
}

let axeSource: string | undefined;

/**
 * axe-core on the page as it is: serious and critical violations, as "rule: target" lines. The
 * script is evaluated through the DevTools protocol, which the page's CSP does not govern.
 */
async function axeViolations(page: Page): Promise<string[]> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  const hasAxe = await page.evaluate(() => 'axe' in window);
  if (!hasAxe) await page.evaluate(axeSource);
  const results = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            context: Document,
            options: object,
          ): Promise<{ violations: { id: string; impact: string | null; nodes: { target: unknown[] }[] }[] }>;
        };
      }
    ).axe;
    const answer = await axe.run(document, { resultTypes: ['violations'] });
    return answer.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)),
    }));
  });
  return results
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.targets.join(', ')}`);
}

/** Asserts axe finds nothing serious or critical, and the page broke no CSP rule and threw nothing. */
export async function assertClean(console: ConsolePage, where: string): Promise<void> {
  assert.deepEqual(await axeViolations(console.page), [], `axe on ${where}`);
  assert.deepEqual(await console.problems(), [], `CSP and script errors on ${where}`);
}

/** The page has no horizontal scroll at its width (the layout fits a 390 px phone). */
export async function assertFitsWidth(page: Page, where: string): Promise<void> {
  const { scroll, width } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    width: window.innerWidth,
  }));
  assert.ok(scroll <= width + 1, `${where}: the page is ${scroll} px wide in a ${width} px window`);
}

/** Fills the sign-in form at `path` with `who`'s e-mail and password and sends it. */
export async function signInAs(page: Page, who: TestUser, path: string): Promise<void> {
  await page.goto(path);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

export type TwoFactorUser = TestUser & { secret: string; recoveryCodes: string[] };

/** A user signed in to `t`'s app who turned two-factor on through the API: its secret and recovery codes. */
export async function twoFactorUser(t: TestApp): Promise<TwoFactorUser> {
  const user = await signIn(t.app, t.database);
  const setup = await t.app.inject({
    method: 'POST',
    url: '/api/auth/2fa/setup',
    headers: user.headers,
    payload: { password: user.password },
  });
  const { secret } = setup.json<{ secret: string }>();
  const enable = await t.app.inject({
    method: 'POST',
    url: '/api/auth/2fa/enable',
    headers: user.headers,
    payload: { code: codeOf(secret) },
  });
  assert.equal(enable.statusCode, 200, enable.body);
  return { ...user, secret, recoveryCodes: enable.json<{ recovery_codes: string[] }>().recovery_codes };
}

/**
 * For the enclosing describe: an app on the loopback venue fakes, listening, a browser, and an admin signed
 * in to the console's admin page in `c`; started in its before hook, closed in its after hook. `t`, `admin`
 * and `c` stay empty until that hook fills them in, so the describe may take them at once, and its tests
 * use them. `open` opens another fresh profile on the same browser and app.
 */
export function useAdminConsole() {
  const t = {} as TestApp;
  const admin = {} as TestUser;
  const c = {} as ConsolePage;
  let fakes: VenueFakes | undefined;
  let browser: Browser | undefined;
  let base = '';
  before(async () => {
    fakes = await startVenueFakes();
    Object.assign(t, await buildTestApp({ env: fakes.env() }));
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
    Object.assign(admin, await signIn(t.app, t.database, { role: 'admin' }));
    Object.assign(c, await openConsole(browser, base));
    await signInAs(c.page, admin, '/console/admin');
    await c.page.getByRole('heading', { name: 'Admin', level: 1 }).waitFor();
  });
  after(async () => {
    await c.close?.();
    await browser?.close();
    await t.close?.();
    await fakes?.close();
  });
  return { t, admin, c, open: (options?: Parameters<typeof openConsole>[2]) => openConsole(browser!, base, options) };
}
