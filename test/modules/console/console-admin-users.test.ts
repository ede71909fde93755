// The admin's users page in headless Chromium: an admin suspends a user and that user's console signs
// out at once; bulk activation and the CSV export; a user's activity; axe, and the page at 390 px.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { signIn } from '../../helpers/test-app.ts';
import { describe, it } from '../../helpers/suite.ts';
import { assertClean, assertFitsWidth, browserMissing, signInAs, useAdminConsole, PHONE } from './console-browser.ts';

describe("the console's users page in a browser", { skip: browserMissing }, () => {
  const { t, admin, c, open } = useAdminConsole();

  it("suspends a user from the users page, and that user's open console signs out", async () => {
    const user = await signIn(t.app, t.database);
    const theirs = await open();
    try {
      await signInAs(theirs.page, user, '/console/account');
      await theirs.page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();

      const { page } = c;
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' }).click();
      await page.getByRole('navigation', { name: 'Admin sections' }).getByRole('link', { name: 'Users' }).click();
      await page.getByLabel('Search users').fill(user.email);
      const row = page
        .getByRole('table', { name: 'Users, newest first' })
        .getByRole('row')
        .filter({ hasText: user.email });
      await row.waitFor();
      await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 1);
      await page.getByRole('button', { name: `Suspend ${user.email}` }).click();
      await page.getByText(`${user.email} is now suspended.`).waitFor();

      // The account stream ends for a suspended account; the console's next ticket is refused.
      await theirs.page.getByText('Signed out: User account is suspended.').waitFor({ timeout: 20_000 });
      await theirs.page.getByLabel('Email').waitFor();
      // The session's cookie is cleared; the device cookie stays (this browser is one the owner used).
      assert.deepEqual(
        (await theirs.context.cookies()).map((k) => k.name),
        ['tp_device'],
        'the session cookie is cleared',
      );
      await assertClean(theirs, 'the signed-out console');
      await assertClean(c, 'the users page');

      // Bulk: activate them again, then export them as CSV.
      await page.getByRole('button', { name: `Activate ${user.email}` }).waitFor();
      await page.getByLabel(`Select ${user.email}`).check();
      await page.getByRole('button', { name: 'Activate selected' }).click();
      await page.getByText('activate: 1 processed.').waitFor();
      await page.getByLabel(`Select ${user.email}`).check();
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Export CSV' }).click(),
      ]);
      const csv = readFileSync((await download.path())!, 'utf8');
      assert.match(csv, new RegExp(user.email.replace(/[.]/g, '\\.')));
      assert.equal(download.suggestedFilename(), 'users.csv');
      await page.getByRole('button', { name: `Reset password of ${user.email}` }).click();
      await page.getByText(new RegExp(`^The password of ${user.email.replace(/[.]/g, '\\.')} was reset`)).waitFor();
      const refused = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: user.email, password: user.password },
        remoteAddress: '10.77.0.1',
      });
      assert.equal(refused.statusCode, 401, 'the old password no longer works');
      await page.getByRole('button', { name: `Activity of ${user.email}` }).click();
      await page
        .getByRole('table', { name: `Latest activity of ${user.email}` })
        .getByRole('row')
        .nth(1)
        .waitFor();
    } finally {
      await theirs.close();
    }
  });

  it('names a common search\'s count "1,000+" and pages on past it, up to the last page that answers', async () => {
    // 1,005 accounts match `crowd`: the API counts a search up to 1,000 (decision 310).
    await t.database.db.execute(sql`
      INSERT INTO users (email, password_hash, status)
      SELECT 'crowd-' || i || '@crowd.example', 'unusable', 'active' FROM generate_series(1, 1005) AS i`);
    const { page } = c;
    await page.goto('/console/admin/users');
    await page.getByLabel('Search users').fill('crowd');
    const status = page.getByRole('status').filter({ hasText: /^Page / });
    await status.getByText('Page 1 · 1,000+ users').waitFor();
    const next = page.getByRole('button', { name: 'Next page' });
    assert.equal(await next.isEnabled(), true, 'more pages than the count shows');
    // Page 50 holds matches 981-1,000; page 51 the last five, past the count.
    for (let n = 2; n <= 51; n++) {
      await next.click();
      await status.getByText(`Page ${n} · 1,000+ users`).waitFor();
    }
    await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 5);
    assert.equal(await next.isEnabled(), false, 'no page after a page that is not full');
  });

  it('fits a 390 px phone', async () => {
    const phone = await open({ viewport: PHONE, colorScheme: 'dark' });
    try {
      await signInAs(phone.page, admin, '/console/admin/users');
      await phone.page.getByRole('table', { name: 'Users, newest first' }).getByRole('row').nth(1).waitFor();
      await assertFitsWidth(phone.page, 'the users page at 390 px');
      await assertClean(phone, 'the users page at 390 px, dark');
    } finally {
      await phone.close();
    }
  });
});
