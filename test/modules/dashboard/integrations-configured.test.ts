// The dashboard's integrations answer with nothing configured and with everything configured: what
// each system last did, no secret shown, probes at most once a minute. Systems that are down are in
// integrations-down.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../../src/platform/clock.ts';
import { DASHBOARD_REUSE_MS } from '../../../src/modules/dashboard/index.ts';
import { startChatReceiver, type ChatReceiver } from '../../fakes/chat-webhook.ts';
import { startLinearFake, type LinearFake } from '../../fakes/linear.ts';
import { startSmtpFake, type SmtpFake } from '../../fakes/smtp.ts';
import { githubDelivery, vercelDelivery } from '../../fakes/webhook-senders.ts';
import { buildTestApp, signIn, TEST_ENCRYPTION_KEY, TEST_JWT_SECRET, type TestApp } from '../../helpers/test-app.ts';
import { storeVenueCredential } from '../../helpers/venue-credentials.ts';
import { startVenueFakes, type VenueFakes } from '../exchange/venue-fakes.ts';
import { assertNoSecrets, getIntegrations, INTEGRATIONS_ROUTE, LINEAR_KEY } from './dashboard-kit.ts';

const NOW = '2031-04-01T10:00:00.000Z';
const WEBHOOK_SECRETS = {
  CODEHOST_WEBHOOK_SECRET: 'dash-codehost-Secr3t-aa11',
  PAYMENTS_WEBHOOK_SECRET: 'whsec_dash-payments-Secr3t-bb22',
  EDGE_WEBHOOK_SECRET: 'dash-edge-Secr3t-cc33',
  TRACKER_WEBHOOK_SECRET: 'dash-tracker-Secr3t-dd44',
  ERRORMON_WEBHOOK_SECRET: 'dash-errormon-Secr3t-ee55',
  DATABASE_WEBHOOK_SECRET: 'dash-database-Secr3t-ff66',
  AUTHPROVIDER_HOOK_SECRET: 'dash-authprovider-Secr3t-gg77',
  MAILER_WEBHOOK_SECRET: 'dash-mailer-Secr3t-hh88',
};
const CHAT_PATH = '/services/T0DASH/B0DASH/dashChatPathSecret42';
const SMTP_USER = 'dash-smtp-user';
const SMTP_PASSWORD = 'dashSmtpPa55wordSecret';
const COINGECKO_KEY = 'CG-dashCoingeckoKeySecret99';
const EXCHANGE_KEY = 'DashExchangeApiKey0123456789abcdefXYZ';
const EXCHANGE_SECRET = 'DashExchangeSecret-0123456789-abcdefghijklmnop';

type Entry = {
  configured: boolean;
  reachable: boolean | null;
  last_success_at: string | null;
  last_error_at: string | null;
  last_error: string | null;
};

describe('integrations with nothing configured', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ clock: fixedClock(NOW), env: { MARKET_DATA_SOURCE: 'simulated' } });
  });
  after(() => t.close());

  it('says configured false everywhere, probes only what is embedded, and needs no authentication', async () => {
    const response = await getIntegrations(t);
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.probe_ttl_seconds, 60);
    assert.equal(body.exchanges.length, 6);
    for (const venue of body.exchanges) {
      assert.deepEqual(
        [venue.configured, venue.credentials, venue.reachable, venue.health, venue.checked_at],
        [false, 0, null, null, null],
        venue.venue,
      );
    }
    assert.deepEqual(
      [body.market_data.configured, body.market_data.source, body.market_data.reachable],
      [false, 'simulated', null],
    );
    assert.deepEqual([body.tracker.configured, body.tracker.backend, body.tracker.reachable], [false, 'local', true]);
    assert.deepEqual([body.chat.configured, body.chat.reachable, body.chat.format], [false, null, 'slack']);
    assert.deepEqual([body.mail.configured, body.mail.reachable], [false, null]);
    assert.deepEqual(
      body.webhooks.map((w: { provider: string }) => w.provider),
      ['codehost', 'payments', 'edge', 'tracker', 'errormon', 'database', 'authprovider', 'mailer'],
    );
    assert.ok(
      body.webhooks.every((w: Entry) => w.configured === false && w.reachable === null && w.last_error === null),
    );
    const redis = Boolean(process.env.REDIS_URL);
    assert.deepEqual([body.redis.configured, body.redis.reachable], [redis, redis ? true : null]);
  });

  it('answers 405 with Allow to a POST, as for any path served under other methods (decision 096)', async () => {
    const response = await t.app.inject({ method: 'POST', url: INTEGRATIONS_ROUTE, payload: {} });
    assert.equal(response.statusCode, 405);
    assert.deepEqual(response.json(), { detail: 'Method Not Allowed' });
    assert.equal(response.headers.allow, 'GET, HEAD');
  });
});

describe('integrations with everything configured', () => {
  const clock = fixedClock(NOW);
  let linear: LinearFake;
  let chat: ChatReceiver;
  let smtp: SmtpFake;
  let venues: VenueFakes;
  let t: TestApp;
  let secrets: string[];

  before(async () => {
    [linear, chat, smtp, venues] = await Promise.all([
      startLinearFake({ apiKey: LINEAR_KEY }),
      startChatReceiver({ flavor: 'slack' }),
      startSmtpFake(),
      startVenueFakes(),
    ]);
    const chatUrl = `${new URL(chat.url).origin}${CHAT_PATH}`;
    // Credentials in the SMTP URL: they must show nowhere (the relay offers no AUTH, so none is tried).
    const smtpUrl = `smtp://${SMTP_USER}:${SMTP_PASSWORD}@${new URL(smtp.url).host}`;
    t = await buildTestApp({
      clock,
      env: {
        ...venues.env(),
        ...WEBHOOK_SECRETS,
        TRACKER_BACKEND: 'linear',
        TRACKER_API_URL: linear.url,
        TRACKER_API_KEY: LINEAR_KEY,
        TRACKER_DEFAULT_TEAM_ID: linear.teams.eng.id,
        CHAT_WEBHOOK_URL: chatUrl,
        SMTP_URL: smtpUrl,
        COINGECKO_API_KEY: COINGECKO_KEY,
      },
    });
    secrets = [
      ...Object.values(WEBHOOK_SECRETS),
      LINEAR_KEY,
      CHAT_PATH,
      'dashChatPathSecret42',
      SMTP_USER,
      SMTP_PASSWORD,
      COINGECKO_KEY,
      EXCHANGE_KEY,
      EXCHANGE_SECRET,
      TEST_JWT_SECRET,
      TEST_ENCRYPTION_KEY,
    ];

    // A stored credential makes binanceus configured.
    const user = await signIn(t.app, t.database);
    await storeVenueCredential(t.app, user, 'binanceus', { apiKey: EXCHANGE_KEY, secret: EXCHANGE_SECRET });

    // Chat and mail: one message through, then one refused a minute later.
    await t.modules.notifications.messages.chat(
      t.database.db,
      { source: 'test', title: 'First', text: 'went through' },
      clock.now(),
    );
    await t.modules.notifications.messages.mail(
      t.database.db,
      { to: 'ops@example.com', subject: 'Hi', text: 'x' },
      clock.now(),
      'dash-mail-1',
    );
    await t.platform.outbox.drain();
    smtp.rejectRecipients.add('gone@example.com');
    clock.advance(60_000);
    chat.respondNext({ status: 404, body: 'no_service' });
    await t.modules.notifications.messages.chat(
      t.database.db,
      { source: 'test', title: 'Second', text: 'refused' },
      clock.now(),
    );
    await t.modules.notifications.messages.mail(
      t.database.db,
      { to: 'gone@example.com', subject: 'Hi', text: 'x' },
      clock.now(),
      'dash-mail-2',
    );
    await t.platform.outbox.drain();

    // Webhooks: edge processed one delivery, codehost rejected a bad signature.
    const edge = vercelDelivery(WEBHOOK_SECRETS.EDGE_WEBHOOK_SECRET, {
      id: 'evt_1',
      type: 'deployment.created',
      createdAt: Date.parse(NOW),
      payload: { deployment: { id: 'dpl_1', name: 'web' } },
    });
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/webhooks/platforms/edge',
          headers: edge.headers,
          payload: edge.body,
        })
      ).statusCode,
      200,
    );
    const forged = githubDelivery('not-the-secret', 'ping', { zen: 'hi' });
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/webhooks/platforms/codehost',
          headers: forged.headers,
          payload: forged.body,
        })
      ).statusCode,
      401,
    );
  });
  after(async () => {
    await t?.close();
    await Promise.all([linear.close(), chat.close(), smtp.close(), venues.close()]);
  });

  it('reports each system configured, with what it last did', async () => {
    const response = await getIntegrations(t);
    assert.equal(response.statusCode, 200);
    const body = response.json();

    const binanceus = body.exchanges.find((v: { venue: string }) => v.venue === 'binanceus');
    assert.deepEqual(
      [binanceus.configured, binanceus.credentials, binanceus.reachable, binanceus.health],
      [true, 1, true, 'healthy'],
    );
    assert.equal(binanceus.checked_at, '2031-04-01T10:01:00.000Z');
    const binance = body.exchanges.find((v: { venue: string }) => v.venue === 'binance');
    assert.deepEqual([binance.configured, binance.reachable, binance.health], [false, null, null]);
    // Market data shares the host: its ping is the only call there.
    assert.deepEqual(
      venues.binance.requests.map((r) => `${r.method} ${r.path}`),
      ['GET /api/v3/ping'],
      'a venue without credentials is not called',
    );

    assert.deepEqual([body.market_data.configured, body.market_data.source], [true, 'binance']);
    assert.deepEqual(
      [body.market_data.reachable, body.market_data.checked_at, body.market_data.last_success_at],
      [true, '2031-04-01T10:01:00.000Z', '2031-04-01T10:01:00.000Z'],
    );
    assert.equal(typeof body.market_data.latency_ms, 'number');
    assert.deepEqual([body.tracker.configured, body.tracker.backend, body.tracker.reachable], [true, 'linear', true]);

    assert.equal(body.chat.configured, true);
    assert.equal(body.chat.last_success_at, NOW);
    assert.equal(body.chat.last_error_at, '2031-04-01T10:01:00.000Z');
    assert.match(body.chat.last_error, /404/);
    assert.equal(body.chat.dead_letters, 1);
    assert.equal(body.mail.configured, true);
    assert.deepEqual(
      [body.mail.reachable, body.mail.checked_at],
      [true, '2031-04-01T10:01:00.000Z'],
      'the relay greeted the check',
    );
    assert.equal(typeof body.mail.latency_ms, 'number');
    assert.equal(body.mail.last_delivery_at, NOW);
    assert.equal(body.mail.last_success_at, '2031-04-01T10:01:00.000Z', 'the check is the latest success');
    assert.equal(body.mail.last_error_at, '2031-04-01T10:01:00.000Z');
    assert.match(
      body.mail.last_error,
      /550 5\.1\.1 <\[e-mail\]>: Recipient address rejected/,
      'the relay named the recipient; the dashboard does not',
    );
    assert.equal(body.mail.dead_letters, 1);

    const hook = (provider: string) => body.webhooks.find((w: { provider: string }) => w.provider === provider);
    assert.ok(body.webhooks.every((w: Entry) => w.configured));
    assert.deepEqual(
      [hook('edge').last_success_at, hook('edge').last_delivery_at, hook('edge').last_error],
      ['2031-04-01T10:01:00.000Z', '2031-04-01T10:01:00.000Z', null],
    );
    // A refused delivery is shown apart from the provider's errors (decision 990).
    assert.deepEqual([hook('codehost').last_error_at, hook('codehost').last_error], [null, null]);
    assert.equal(hook('codehost').last_refused_at, '2031-04-01T10:01:00.000Z');
    assert.match(hook('codehost').last_refusal, /signature/i);
  });

  it(
    'shows no secret, no credential-bearing URL, no path of a webhook URL and no recipient ' +
      'address in any dashboard answer',
    async () => {
      for (const path of ['overview', 'agents', 'integrations']) {
        const response = await t.app.inject({ method: 'GET', url: `/api/v1/dashboard/${path}` });
        assert.equal(response.statusCode, 200);
        assertNoSecrets(response.body, [...secrets, 'gone@example.com', 'ops@example.com'], path);
        assert.doesNotMatch(response.body, /:\/\/[^/"\s]*@/, `${path} holds a URL with credentials`);
      }
    },
  );

  it('probes the tracker, market data and the mail relay at most once a minute', async () => {
    const viewerCalls = () => linear.requests.filter((r) => r.fields.includes('viewer')).length;
    const pings = () => venues.binance.requests.filter((r) => r.path === '/api/v3/ping').length;
    const calls = () => [viewerCalls(), pings(), smtp.connections];
    clock.advance(120_000);
    const [tracker, market, mail] = calls();
    await getIntegrations(t);
    assert.deepEqual(calls(), [tracker! + 1, market! + 1, mail! + 1]);
    clock.advance(59_000);
    const cached = (await getIntegrations(t)).json();
    assert.deepEqual(calls(), [tracker! + 1, market! + 1, mail! + 1], 'within a minute the last checks are reused');
    const checkedAt = new Date(clock.now().getTime() - 59_000).toISOString();
    assert.deepEqual(
      [cached.tracker.checked_at, cached.market_data.checked_at, cached.mail.checked_at],
      [checkedAt, checkedAt, checkedAt],
    );
    // The answer of a moment ago is reused for DASHBOARD_REUSE_MS (decision 950); past it, the checks are a minute old.
    clock.advance(DASHBOARD_REUSE_MS);
    await getIntegrations(t);
    assert.deepEqual(calls(), [tracker! + 2, market! + 2, mail! + 2]);
    assert.equal(smtp.received.length, 1, 'a check sends no mail');
  });
});
