import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../../helpers/test-app.ts';
import { bearerDelivery, linearDelivery, sentryDelivery, vercelDelivery } from '../../fakes/webhook-senders.ts';
import { deliveryRows, NOW, NOW_S, outboxRows, SECRETS, send, webhookApp } from './webhooks-kit.ts';

describe('edge, tracker, error monitoring and database webhooks', () => {
  let t: TestApp;
  before(async () => {
    ({ t } = await webhookApp());
  });
  after(async () => {
    await t.close();
  });
  const messageOf = async (provider: string, deliveryId: string) =>
    (await outboxRows(t, provider)).filter((row) => row.dedupe_key === `${provider}:${deliveryId}`);

  describe('edge (Vercel)', () => {
    const URL = '/api/webhooks/platforms/edge';
    const deployment = (type: string, id = `dpl_${randomUUID()}`) => ({
      id: `evt_${randomUUID()}`,
      type,
      createdAt: NOW.getTime(),
      payload: {
        deployment: {
          id,
          name: 'trading-web',
          url: 'trading-web-abc.vercel.app',
          meta: { githubCommitRef: 'main', githubCommitSha: 'e'.repeat(40), githubCommitMessage: 'Ship it' },
        },
        links: {
          deployment: 'https://vercel.com/acme/trading-web/abc',
          project: 'https://vercel.com/acme/trading-web',
        },
        target: 'production',
        project: { id: 'prj_1' },
      },
    });

    it('posts a ready deployment and a failed one, keyed by the body id', async () => {
      const ready = deployment('deployment.succeeded');
      const failed = deployment('deployment.error');
      for (const body of [ready, failed])
        assert.equal((await send(t, URL, vercelDelivery(SECRETS.EDGE_WEBHOOK_SECRET, body))).statusCode, 200);
      const [ok] = await messageOf('edge', ready.id);
      assert.equal(ok?.payload.title, 'Deployment of trading-web (production) is ready');
      assert.equal(ok?.payload.url, 'https://vercel.com/acme/trading-web/abc');
      assert.equal(ok?.payload.level, 'success');
      const [error] = await messageOf('edge', failed.id);
      assert.equal(error?.payload.title, 'Deployment of trading-web (production) failed');
      assert.equal(error?.payload.level, 'error');
    });

    it('stores a created deployment without a message, and a redelivery as duplicate', async () => {
      const created = deployment('deployment.created');
      const delivery = vercelDelivery(SECRETS.EDGE_WEBHOOK_SECRET, created);
      assert.equal((await send(t, URL, delivery)).json().status, 'processed');
      assert.equal((await send(t, URL, delivery)).json().status, 'duplicate');
      assert.equal((await messageOf('edge', created.id)).length, 0);
      assert.equal((await deliveryRows(t, 'edge')).filter((row) => row.delivery_id === created.id).length, 1);
    });

    it('answers 401 for a wrong and a missing x-vercel-signature', async () => {
      const body = deployment('deployment.succeeded');
      assert.equal((await send(t, URL, vercelDelivery('wrong', body))).statusCode, 401);
      assert.equal(
        (await send(t, URL, vercelDelivery(SECRETS.EDGE_WEBHOOK_SECRET, body), { 'x-vercel-signature': undefined }))
          .statusCode,
        401,
      );
      assert.equal((await messageOf('edge', body.id)).length, 0);
    });
  });

  describe('tracker (Linear)', () => {
    const URL = '/api/webhooks/platforms/tracker';
    const SECRET = SECRETS.TRACKER_WEBHOOK_SECRET;
    const issue = (action: string, extra: Record<string, unknown> = {}) => ({
      action,
      type: 'Issue',
      createdAt: NOW.toISOString(),
      url: 'https://linear.app/acme/issue/ENG-42/fix-routing',
      actor: { id: 'u1', name: 'Grace Hopper', type: 'user' },
      data: {
        id: randomUUID(),
        identifier: 'ENG-42',
        title: 'Fix routing',
        state: { name: 'Done', type: 'completed' },
        priorityLabel: 'High',
      },
      organizationId: 'org_1',
      webhookTimestamp: NOW.getTime() - 1_000,
      webhookId: 'wh_1',
      ...extra,
    });

    it('posts a created issue and a state change, but not another edit', async () => {
      const created = linearDelivery(SECRET, issue('create'));
      const moved = linearDelivery(
        SECRET,
        issue('update', { updatedFrom: { stateId: 's-1', updatedAt: NOW.toISOString() } }),
        { specNames: true },
      );
      const retitled = linearDelivery(SECRET, issue('update', { updatedFrom: { title: 'Old title' } }));
      for (const delivery of [created, moved, retitled]) assert.equal((await send(t, URL, delivery)).statusCode, 200);
      assert.equal(
        (await messageOf('tracker', created.headers['linear-delivery']!))[0]?.payload.title,
        'Issue created: ENG-42 Fix routing',
      );
      const [move] = await messageOf('tracker', moved.headers['tracker-delivery']!);
      assert.equal(move?.payload.title, 'ENG-42 Fix routing moved to Done');
      assert.equal(move?.payload.level, 'success');
      assert.equal((await messageOf('tracker', retitled.headers['linear-delivery']!)).length, 0);
      const stored = (await deliveryRows(t, 'tracker')).find(
        (row) => row.delivery_id === retitled.headers['linear-delivery'],
      );
      assert.equal(stored?.event, 'Issue.update');
    });

    it('posts a new comment', async () => {
      const delivery = linearDelivery(SECRET, {
        action: 'create',
        type: 'Comment',
        url: 'https://linear.app/acme/issue/ENG-42#comment-1',
        webhookTimestamp: NOW.getTime(),
        data: {
          id: 'c1',
          body: 'Looks good to me',
          issue: { id: 'i1', identifier: 'ENG-42', title: 'Fix routing' },
          user: { name: 'Ada' },
        },
      });
      await send(t, URL, delivery);
      const [message] = await messageOf('tracker', delivery.headers['linear-delivery']!);
      assert.equal(message?.payload.title, 'New comment on ENG-42 Fix routing');
      assert.equal(message?.payload.text, 'Ada: Looks good to me');
    });

    it('answers 401 for a wrong or missing signature and for a webhookTimestamp older than 60 s', async () => {
      assert.equal((await send(t, URL, linearDelivery('wrong', issue('create')))).statusCode, 401);
      assert.equal(
        (await send(t, URL, linearDelivery(SECRET, issue('create')), { 'linear-signature': undefined })).statusCode,
        401,
      );
      const stale = await send(
        t,
        URL,
        linearDelivery(SECRET, issue('create', { webhookTimestamp: NOW.getTime() - 61_000 })),
      );
      assert.deepEqual(
        [stale.statusCode, stale.json()],
        [401, { detail: 'Webhook timestamp is outside the tolerance window' }],
      );
      const none = await send(t, URL, linearDelivery(SECRET, issue('create', { webhookTimestamp: undefined })));
      assert.deepEqual([none.statusCode, none.json()], [401, { detail: 'Missing webhookTimestamp in the body' }]);
    });
  });

  describe('error monitoring (Sentry)', () => {
    const URL = '/api/webhooks/platforms/errormon';
    const SECRET = SECRETS.ERRORMON_WEBHOOK_SECRET;

    it('posts a new issue, a triggered alert and a critical metric alert', async () => {
      const issue = sentryDelivery(
        SECRET,
        'issue',
        {
          action: 'created',
          installation: { uuid: 'inst-1' },
          actor: { type: 'application', id: 'sentry', name: 'Sentry' },
          data: {
            issue: {
              id: '1',
              shortId: 'API-1A',
              title: 'TypeError: x is undefined',
              culprit: 'routes/orders',
              level: 'error',
              web_url: 'https://sentry.io/issues/1/',
              project: { slug: 'api' },
            },
          },
        },
        { timestamp: NOW_S },
      );
      const alert = sentryDelivery(
        SECRET,
        'event_alert',
        {
          action: 'triggered',
          data: {
            event: { title: 'Timeout on /api/v1/market', web_url: 'https://sentry.io/events/2/', level: 'warning' },
            triggered_rule: 'Slow market',
          },
        },
        { timestamp: NOW_S, specNames: true },
      );
      const metric = sentryDelivery(
        SECRET,
        'metric_alert',
        {
          action: 'critical',
          data: {
            description_title: 'Error rate above 5%',
            description_text: '7% in the last 10 minutes',
            web_url: 'https://sentry.io/alerts/3/',
            metric_alert: { alert_rule: { name: 'Error rate' } },
          },
        },
        { timestamp: NOW_S },
      );
      for (const delivery of [issue, alert, metric]) assert.equal((await send(t, URL, delivery)).statusCode, 200);
      const [a] = await messageOf('errormon', issue.headers['request-id']!);
      assert.equal(a?.payload.title, 'New issue: API-1A TypeError: x is undefined');
      assert.equal(a?.payload.url, 'https://sentry.io/issues/1/');
      const [b] = await messageOf('errormon', alert.headers['request-id']!);
      assert.equal(b?.payload.title, 'Alert "Slow market" triggered: Timeout on /api/v1/market');
      assert.equal(b?.payload.level, 'warning');
      const [c] = await messageOf('errormon', metric.headers['request-id']!);
      assert.equal(c?.payload.title, 'Metric alert critical: Error rate above 5%');
      assert.equal(c?.payload.level, 'error');
      const stored = (await deliveryRows(t, 'errormon')).find(
        (row) => row.delivery_id === metric.headers['request-id'],
      );
      assert.equal(stored?.event, 'metric_alert.critical');
    });

    it('answers 401 for a wrong and a missing signature', async () => {
      const body = { action: 'created', data: { error: { title: 'Boom' } } };
      assert.equal((await send(t, URL, sentryDelivery('wrong', 'error', body, { timestamp: NOW_S }))).statusCode, 401);
      const missing = await send(t, URL, sentryDelivery(SECRET, 'error', body, { timestamp: NOW_S }), {
        'sentry-hook-signature': undefined,
      });
      assert.equal(missing.statusCode, 401);
    });
  });

  describe('database (Supabase)', () => {
    const URL = '/api/webhooks/platforms/database';
    const SECRET = SECRETS.DATABASE_WEBHOOK_SECRET;

    it('posts a sign-up for an INSERT on profiles and stores an UPDATE without a message', async () => {
      const insert = bearerDelivery(
        SECRET,
        {
          type: 'INSERT',
          table: 'profiles',
          schema: 'public',
          record: { id: randomUUID(), email: 'new@example.com', full_name: 'New Person' },
          old_record: null,
        },
        { 'x-webhook-source': 'supabase', 'x-webhook-event': 'INSERT' },
      );
      const update = bearerDelivery(SECRET, {
        type: 'UPDATE',
        table: 'profiles',
        schema: 'public',
        record: { id: 'p1', email: 'x@example.com' },
        old_record: { id: 'p1' },
      });
      const first = await send(t, URL, insert);
      assert.equal(first.statusCode, 200);
      assert.equal(first.json().event, 'INSERT public.profiles');
      assert.match(first.json().delivery_id, /^sha256:[0-9a-f]{64}@\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00.000Z$/);
      const [message] = await messageOf('database', first.json().delivery_id);
      assert.equal(message?.payload.title, 'New user signed up');
      assert.equal(message?.payload.text, 'New Person <new@example.com>');
      const second = await send(t, URL, update);
      assert.equal((await messageOf('database', second.json().delivery_id)).length, 0);
      assert.equal((await send(t, URL, insert)).json().status, 'duplicate');
    });

    it('answers 401 for a wrong and a missing bearer secret', async () => {
      const body = { type: 'INSERT', table: 'profiles', schema: 'public', record: { id: 'p2' }, old_record: null };
      const wrong = await send(t, URL, bearerDelivery('wrong-secret', body));
      assert.deepEqual([wrong.statusCode, wrong.json()], [401, { detail: 'Invalid bearer token' }]);
      const missing = await send(t, URL, bearerDelivery(SECRET, body), { authorization: undefined });
      assert.deepEqual([missing.statusCode, missing.json()], [401, { detail: 'Missing bearer token' }]);
    });
  });
});
