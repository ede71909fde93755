// The other admin pages in headless Chromium: the command center's board and comments, a
// retrieval-settings conflict shown rather than lost, "run now", axe on every admin page, and every
// admin page and the account page on a 390 px phone.
import assert from 'node:assert/strict';
import { describe, it } from '../../helpers/suite.ts';
import { assertClean, assertFitsWidth, browserMissing, signInAs, useAdminConsole, PHONE } from './console-browser.ts';

describe("the console's admin pages in a browser", { skip: browserMissing }, () => {
  const { t, admin, c, open } = useAdminConsole();

  it("shows the command center's board, opens a task and records a comment", async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Command center' }).click();
    await page.getByLabel('New task').fill('Check the venue budget');
    await page.getByRole('button', { name: 'Create task' }).click();
    const todo = page.getByRole('region', { name: 'To do' });
    await todo.getByRole('button', { name: 'Check the venue budget' }).click();
    await page.getByLabel('Comment').fill('Looked at it: fine.');
    await page.getByRole('button', { name: 'Add comment' }).click();
    await page.getByText('Looked at it: fine.').waitFor();
    await page.getByLabel('Status').selectOption('in_progress');
    await page
      .getByRole('region', { name: 'In progress' })
      .getByRole('button', { name: 'Check the venue budget' })
      .waitFor();
    await page.getByRole('table', { name: 'Precision by source' }).waitFor();
    await page.getByRole('table', { name: 'Agent activity in the last 24 hours' }).waitFor();
    await assertClean(c, 'the command center');
  });

  it('shows a retrieval-settings change made meanwhile instead of overwriting it', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Retrieval' }).click();
    const interval = page.getByLabel('Collect every (minutes)');
    await interval.waitFor();
    const current = await t.app.inject({ method: 'GET', url: '/api/v1/admin/rag-settings', headers: admin.headers });
    const { version, collection_interval_minutes: minutes } = current.json<{
      version: number;
      collection_interval_minutes: number;
    }>();
    const elsewhere = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/admin/rag-settings',
      headers: admin.headers,
      payload: { version, max_posts_per_run: 150 },
    });
    assert.equal(elsewhere.statusCode, 200, elsewhere.body);

    await interval.fill(String(minutes + 1));
    await page.getByRole('button', { name: 'Save settings' }).click();
    const conflict = page.getByRole('alert').filter({ hasText: 'changed by someone else' });
    await conflict.waitFor();
    assert.match(await conflict.innerText(), /"max_posts_per_run": 150/);
    assert.equal(await interval.inputValue(), String(minutes + 1), 'the edit is kept');
    await assertClean(c, 'the retrieval settings with a conflict');
    await page.getByRole('button', { name: 'Keep my edits over theirs' }).click();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Saved.').waitFor();
    const after = (
      await t.app.inject({ method: 'GET', url: '/api/v1/admin/rag-settings', headers: admin.headers })
    ).json();
    assert.equal(after.collection_interval_minutes, minutes + 1);
    assert.equal(after.max_posts_per_run, 150, 'the other change survived');
  });

  it('runs a job now and lists its last run', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Jobs' }).click();
    await page.getByRole('button', { name: 'Run now: cleanup-expired-tokens' }).click();
    await page.getByText(/^Started cleanup-expired-tokens: (running|succeeded)$/).waitFor();
    const row = page
      .getByRole('table', { name: 'Jobs and their last runs' })
      .getByRole('row')
      .filter({ hasText: 'cleanup-expired-tokens' });
    await page.waitForFunction(() =>
      [...document.querySelectorAll('tr')].some(
        (r) => r.textContent?.includes('cleanup-expired-tokens') && /succeeded|running/.test(r.textContent),
      ),
    );
    assert.match(await row.innerText(), /succeeded|running/);
    await assertClean(c, 'the jobs page');
  });

  it('passes axe on every other admin page', async () => {
    const { page } = c;
    const pages: [string, () => Promise<void>][] = [
      ['Overview', () => page.getByRole('table', { name: 'Agents and their status' }).waitFor()],
      ['Platform', () => page.getByLabel('Backtests per hour').waitFor()],
      ['Provider keys', () => page.getByRole('table', { name: /Provider API keys/ }).waitFor()],
      ['Venues', () => page.getByRole('table', { name: 'Venues: health, weight budget and breaker' }).waitFor()],
      ['Webhooks', () => page.getByRole('table', { name: 'Providers: secret, last delivery and errors' }).waitFor()],
      ['Integrations', () => page.getByRole('table', { name: 'External systems' }).waitFor()],
    ];
    for (const [name, ready] of pages) {
      await page.getByRole('navigation', { name: 'Admin sections' }).getByRole('link', { name, exact: true }).click();
      await ready();
      await assertClean(c, `the admin page ${name}`);
    }
  });

  it('fits a 390 px phone on every admin page and the account page', async () => {
    const phone = await open({ viewport: PHONE });
    try {
      await signInAs(phone.page, admin, '/console/admin');
      await phone.page.getByRole('heading', { name: 'Admin', level: 1 }).waitFor();
      for (const name of [
        'Overview',
        'Users',
        'Platform',
        'Command center',
        'Provider keys',
        'Retrieval',
        'Venues',
        'Jobs',
        'Webhooks',
        'Integrations',
      ]) {
        const link = phone.page
          .getByRole('navigation', { name: 'Admin sections' })
          .getByRole('link', { name, exact: true });
        await link.click();
        await phone.page.waitForFunction(
          (label) =>
            document.querySelector('nav[aria-label="Admin sections"] [aria-current="page"]')?.textContent?.trim() ===
            label,
          name,
        );
        await phone.page.waitForLoadState('networkidle');
        await assertFitsWidth(phone.page, `the admin page ${name} at 390 px`);
        await assertClean(phone, `the admin page ${name} at 390 px`);
      }
      await phone.page.getByRole('link', { name: 'Account', exact: true }).click();
      await phone.page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
      await phone.page.waitForLoadState('networkidle');
      await assertFitsWidth(phone.page, 'the account page at 390 px');
      await assertClean(phone, 'the account page at 390 px');
    } finally {
      await phone.close();
    }
  });

  it('passes axe in the dark theme too', async () => {
    const { page } = c;
    await page.getByRole('button', { name: 'Dark theme' }).click();
    try {
      await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
      await page
        .getByRole('navigation', { name: 'Admin sections' })
        .getByRole('link', { name: 'Overview', exact: true })
        .click();
      await page.getByRole('table', { name: 'Agents and their status' }).waitFor();
      await assertClean(c, 'the admin overview, dark');
      await page
        .getByRole('navigation', { name: 'Admin sections' })
        .getByRole('link', { name: 'Command center', exact: true })
        .click();
      await page.getByRole('region', { name: 'To do' }).waitFor();
      await assertClean(c, 'the command center, dark');
      await page.goto('/console/no/such/page');
      await page.getByRole('heading', { name: 'Page not found' }).waitFor();
      assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark', 'the choice is kept');
      await assertClean(c, 'the page-not-found page, dark');
    } finally {
      await page.getByRole('button', { name: 'Dark theme' }).click();
    }
  });
});
