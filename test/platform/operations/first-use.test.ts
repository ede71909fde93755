// What the built server leaves for first use (decisions 390 and 391): @simplewebauthn/server until the
// first passkey ceremony, nodemailer until the first mail or relay check (the chunks of dist/ that a
// start reads hold neither: build-output.test.ts), and ICU's locale data until something formats or
// compares by locale. Here the built server, as `npm start` runs it, starts without the last and answers
// the first request that needs each library.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSmtpFake, type SmtpFake } from '../../fakes/smtp.ts';
import { killStarted, startServer, STARTUP_MS, storage, postJson } from '../../helpers/processes.ts';

const INTL_CALLS = path.resolve(import.meta.dirname, '../../helpers/intl-calls.mjs');

describe('the built server, at start and on the first request that needs what it did not load', () => {
  let smtp: SmtpFake;
  let server: Awaited<ReturnType<typeof startServer>>;
  before(async () => {
    smtp = await startSmtpFake();
    server = await startServer({
      ...(await storage()),
      SMTP_URL: smtp.url,
      ADMIN_EMAIL: 'root@example.com',
      ADMIN_PASSWORD: 'root-password-1',
      // Every job timer too: croner reads their schedules at start.
      SCHEDULER: 'internal',
      NODE_OPTIONS: `--import=${INTL_CALLS}`,
    });
  });
  after(async () => {
    await server?.stop();
    killStarted();
    await smtp?.close();
  });

  it('starts without using ICU locale data (Intl, toLocaleString, localeCompare)', async () => {
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    const uses = server
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('intl: '));
    assert.deepEqual(uses, []);
  });

  it('answers the options of a passkey sign-in', { timeout: STARTUP_MS }, async () => {
    const started = await postJson(`${server.url}/api/auth/passkeys/options`, { purpose: 'login' });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const options = started.body.options as { challenge: string; userVerification: string };
    assert.match(options.challenge, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(options.userVerification, 'required');
  });

  it('checks the mail relay for the dashboard', { timeout: STARTUP_MS }, async () => {
    const signedIn = await postJson(`${server.url}/api/auth/login`, {
      email: 'root@example.com',
      password: 'root-password-1',
    });
    assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
    const connections = smtp.connections;
    const response = await fetch(`${server.url}/api/v1/dashboard/integrations`, {
      headers: { authorization: `Bearer ${String(signedIn.body.access_token)}` },
    });
    assert.equal(response.status, 200);
    const { mail } = (await response.json()) as { mail: { configured: boolean; reachable: boolean } };
    assert.deepEqual([mail.configured, mail.reachable], [true, true]);
    assert.equal(smtp.connections, connections + 1, 'the relay was greeted');
  });
});
