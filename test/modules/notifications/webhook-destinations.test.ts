// A user's webhook URL is a door into our network (issue 40, point 3): https only, and no private,
// loopback or link-local address, written literally or reached through a name, checked when saved and
// again at every send (a name that later resolves inward is refused before any connection). Names are
// resolved through the injected lookup, as the clock is injected.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { startChatReceiver, type ChatReceiver } from '../../fakes/chat-webhook.ts';
import { assertIssue } from '../../helpers/error-assertions.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import type { ResolvedAddress } from '../../../src/platform/host-lookup.ts';

describe('webhook destinations', () => {
  let t: TestApp;
  let alice: TestUser;
  let receiver: ChatReceiver;
  /** What each name resolves to, as a DNS server would answer now. */
  const dns = new Map<string, ResolvedAddress[]>();
  const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });
  const v6 = (address: string): ResolvedAddress => ({ address, family: 6 });

  before(async () => {
    receiver = await startChatReceiver({ flavor: 'slack' });
    t = await buildTestApp({
      lookup: async (hostname) => {
        const answer = dns.get(hostname);
        if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
        return answer;
      },
    });
    alice = await signIn(t.app, t.database);
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  const save = (url: string) =>
    t.app.inject({
      method: 'PUT',
      url: '/api/notifications/preferences',
      headers: alice.headers,
      payload: { channels: [{ type: 'webhook', url, format: 'slack' }], events: [] },
    });
  const refused = async (url: string, why: RegExp) => {
    const issue = assertIssue(await save(url), ['body', 'channels', 0, 'url'], 'value_error');
    assert.match(issue.msg, why, url);
    assert.ok(!JSON.stringify(issue).includes('s3cret'), 'the URL is not echoed');
  };

  it('refuses plain http and addresses that are not public, written literally', async () => {
    await refused('http://hooks.example.com/s3cret', /only https/);
    for (const url of [
      'https://127.0.0.1/s3cret',
      'https://10.0.0.7/s3cret',
      'https://192.168.1.1/s3cret',
      'https://169.254.169.254/latest/s3cret',
      'https://[::1]/s3cret',
      'https://[fe80::1]/s3cret',
      'https://[fd00::5]/s3cret',
      'https://[::ffff:127.0.0.1]/s3cret',
    ])
      await refused(url, /private, loopback or link-local/);
  });

  it('refuses names that resolve to such addresses, IPv4 or IPv6, even among public ones', async () => {
    dns.set('localhost.example', [v4('127.0.0.1')]);
    dns.set('intranet.example', [v4('93.184.216.34'), v4('10.1.2.3')]);
    dns.set('six.example', [v6('::1')]);
    dns.set('ula.example', [v6('fd12:3456:789a::1')]);
    for (const host of ['localhost.example', 'intranet.example', 'six.example', 'ula.example'])
      await refused(`https://${host}/s3cret`, /resolves to a private, loopback or link-local address/);
    await refused('https://nowhere.example/s3cret', /does not resolve/);
  });

  it('saves a name resolving to public addresses, and refuses to send once it resolves inward', async () => {
    const port = new URL(receiver.url).port;
    dns.set('rebind.example', [v4('93.184.216.34'), v6('2606:2800:220:1::1')]);
    assert.equal((await save(`https://rebind.example:${port}/s3cret`)).statusCode, 200);
    // The name now points at this machine, where the receiver listens.
    dns.set('rebind.example', [v4('127.0.0.1')]);
    const sent = await t.app.inject({ method: 'POST', url: '/api/notifications/test', headers: alice.headers });
    assert.equal(sent.statusCode, 202, sent.body);
    await t.platform.outbox.drain();
    const [row] = await t.database.rows<{ status: string; last_error: string }>(
      sql`SELECT status, last_error FROM outbox WHERE kind = 'notify.send'`,
    );
    assert.equal(row!.status, 'dead');
    assert.match(row!.last_error, /not sent: .*resolves to a private, loopback or link-local address \(127\.0\.0\.1\)/);
    assert.equal(receiver.received.length, 0, 'no connection was made');
  });

  it('refuses a Telegram channel where the server has no bot (TELEGRAM_BOT_TOKEN unset)', async () => {
    const response = await t.app.inject({
      method: 'PUT',
      url: '/api/notifications/preferences',
      headers: alice.headers,
      payload: { channels: [{ type: 'telegram', chat_id: '42' }], events: [] },
    });
    const issue = assertIssue(response, ['body', 'channels', 0, 'type'], 'value_error');
    assert.match(issue.msg, /Telegram notifications are not configured/);
  });
});
