// Passkeys in headless Chromium with its virtual authenticator (DevTools' WebAuthn domain; issue 41,
// decision 204): added under Security, signing in without a password and as the second factor, a
// step-up; and, with the browser's own credentials posted to the API, a replayed or tampered
// assertion refused, a clone caught by its counter, another user's passkey 404. The app listens
// on localhost, the RP ID (an IP address cannot be one).
import assert from 'node:assert/strict';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { shiftedClock } from '../../helpers/shifted-clock.ts';
import { closedPort } from '../../helpers/ports.ts';
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
  waitForOrExplain,
} from './console-browser.ts';

interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId: string;
  privateKey: string;
  userHandle: string;
  signCount: number;
}

/** A platform authenticator with user verification, as a phone or laptop has, in this page. */
async function virtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; id: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, id: authenticatorId };
}

const credentialsOf = async (a: { cdp: CDPSession; id: string }) =>
  (await a.cdp.send('WebAuthn.getCredentials', { authenticatorId: a.id })).credentials as VirtualCredential[];

describe('passkeys in the console, in a browser', { skip: browserMissing }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  const clock = shiftedClock();
  let user: TestUser;
  /** The passkey the first test made, copied into the authenticators of later pages. */
  let credential: VirtualCredential;
  let copies = 0;

  before(async () => {
    const port = await closedPort();
    base = `http://localhost:${port}`;
    t = await buildTestApp({ clock, env: { WEBAUTHN_ORIGINS: base } });
    await t.app.listen({ host: '127.0.0.1', port });
    browser = await launchBrowser();
    user = await signIn(t.app, t.database);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A fresh profile with an authenticator holding the first test's passkey. */
  async function withPasskey(options: { viewport?: { width: number; height: number } } = {}) {
    const c = await openConsole(browser, base, options);
    const authenticator = await virtualAuthenticator(c.page);
    // Each copy counts on from well past the uses of the copies before it: the server refuses a
    // counter that does not move forward, as it would a clone's.
    copies += 1;
    await authenticator.cdp.send('WebAuthn.addCredential', {
      authenticatorId: authenticator.id,
      credential: { ...credential, signCount: copies * 1_000 },
    });
    return { c, authenticator };
  }

  /** Options and the browser's assertion for them, made in the page as the console would. */
  const assertionIn = (page: Page, body: Record<string, string>) =>
    page.evaluate(async (request) => {
      const answer = await fetch('/api/auth/passkeys/options', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request),
      });
      const started = (await answer.json()) as {
        challenge_token: string;
        options: PublicKeyCredentialRequestOptionsJSON;
      };
      const made = (await navigator.credentials.get({
        publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(started.options),
      })) as PublicKeyCredential;
      return {
        challenge_token: started.challenge_token,
        response: made.toJSON() as unknown as Record<string, unknown>,
      };
    }, body);
  const verify = (payload: object) => t.app.inject({ method: 'POST', url: '/api/auth/passkeys/verify', payload });

  it('adds a passkey under Security (two-factor turns on), axe-clean and at 390 px', async () => {
    const c = await openConsole(browser, base, { viewport: PHONE });
    try {
      const authenticator = await virtualAuthenticator(c.page);
      await signInAs(c.page, user, '/console/account/security');
      await c.page.getByRole('heading', { name: 'Passkeys' }).waitFor();
      await c.page.getByText('Two-factor authentication is off.').waitFor();
      await c.page.getByLabel('Passkey name').fill('Test phone');
      // The first second factor takes the password (decision 681).
      await c.page.getByLabel('Password for the passkey').fill(user.password);
      await c.page.getByRole('button', { name: 'Add a passkey' }).click();
      await c.page.getByRole('cell', { name: 'Test phone', exact: true }).waitFor();
      await c.page.getByText('Two-factor authentication is on.').waitFor();
      assert.equal(await c.page.getByLabel('Password for the passkey').count(), 0, 'asked only for the first');
      await assertFitsWidth(c.page, 'Security with a passkey at 390 px');
      await assertClean(c, 'Security with a passkey');
      [credential] = await credentialsOf(authenticator);
      assert.equal(credential?.isResidentCredential, true);
      assert.equal(credential?.rpId, 'localhost');
    } finally {
      await c.close();
    }
  });

  it('signs in without a password, into the same cookie session a password sign-in makes', async () => {
    const { c } = await withPasskey();
    try {
      await c.page.goto('/console/sign-in');
      await c.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await c.page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
      const cookies = await c.context.cookies();
      assert.deepEqual(
        cookies.map((k) => ({ name: k.name, path: k.path, httpOnly: k.httpOnly })),
        // A completed sign-in sets the device cookie, as a password sign-in does (decision 730).
        [
          { name: 'tp_console_refresh', path: '/api/console/session', httpOnly: true },
          { name: 'tp_device', path: '/api', httpOnly: true },
        ],
      );
      await c.page.reload();
      await c.page.getByText(user.email).first().waitFor();
      await assertClean(c, 'the account page after a passkey sign-in');
    } finally {
      await c.close();
    }
  });

  it('offers the passkey for the second factor of a password sign-in, and for a step-up', async () => {
    const { c, authenticator } = await withPasskey();
    try {
      await signInAs(c.page, user, '/console/account/security');
      await c.page.getByRole('button', { name: 'Use a passkey' }).click();
      await waitForOrExplain(c, c.page.getByRole('heading', { name: 'Passkeys' }));
      // Past STEP_UP_MAX_AGE_MINUTES, a second passkey needs the second factor again.
      clock.advance(11 * 60_000);
      await c.page.getByLabel('Passkey name').fill('Second');
      await c.page.getByRole('button', { name: 'Add a passkey' }).click();
      await c.page.getByRole('button', { name: 'Confirm with a passkey' }).click();
      await c.page.getByRole('button', { name: 'Confirm with a passkey' }).waitFor({ state: 'detached' });
      await assertClean(c, 'Security after a step-up');
      // The second passkey is another device's: this authenticator, holding the first, would refuse
      // to make another for the same account (the options exclude it).
      await authenticator.cdp.send('WebAuthn.removeCredential', {
        authenticatorId: authenticator.id,
        credentialId: credential.credentialId,
      });
      await c.page.getByRole('button', { name: 'Add a passkey' }).click();
      await c.page.getByRole('cell', { name: 'Second', exact: true }).waitFor();
    } finally {
      await c.close();
    }
  });

  it('refuses a replayed or tampered assertion and a cloned authenticator (its counter went back)', async () => {
    const { c, authenticator } = await withPasskey();
    try {
      await c.page.goto('/console/sign-in');
      const first = await assertionIn(c.page, { purpose: 'login' });
      assert.equal((await verify(first)).statusCode, 200);
      assert.equal((await verify(first)).statusCode, 401, 'the same answer again');
      const next = await assertionIn(c.page, { purpose: 'login' });
      assert.equal((await verify({ ...next, response: first.response })).statusCode, 401, 'an old answer');
      const tampered = structuredClone(next.response) as { response: { signature: string } };
      const signature = Buffer.from(tampered.response.signature, 'base64url');
      signature[signature.length - 1]! ^= 1;
      tampered.response.signature = signature.toString('base64url');
      assert.equal((await verify({ ...next, response: tampered })).statusCode, 401, 'a tampered signature');

      // A clone: the same key in an authenticator whose counter is behind the one last seen.
      const [current] = await credentialsOf(authenticator);
      await authenticator.cdp.send('WebAuthn.removeCredential', {
        authenticatorId: authenticator.id,
        credentialId: current!.credentialId,
      });
      await authenticator.cdp.send('WebAuthn.addCredential', {
        authenticatorId: authenticator.id,
        credential: { ...current!, signCount: 1 },
      });
      const cloned = await assertionIn(c.page, { purpose: 'login' });
      const refused = await verify(cloned);
      assert.equal(refused.statusCode, 401, refused.body);
    } finally {
      await c.close();
    }
  });

  it("answers 404 for another user's passkey", async () => {
    const other = await signIn(t.app, t.database);
    const mine = await t.app.inject({ method: 'GET', url: '/api/auth/passkeys', headers: user.headers });
    const [passkey] = mine.json<{ id: string }[]>();
    const renamed = await t.app.inject({
      method: 'PATCH',
      url: `/api/auth/passkeys/${passkey!.id}`,
      headers: other.headers,
      payload: { name: 'mine now' },
    });
    assert.equal(renamed.statusCode, 404);
  });
});
