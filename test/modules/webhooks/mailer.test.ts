import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { TestApp } from '../../helpers/test-app.ts';
import { mailerSpecDelivery, svixDelivery } from '../../fakes/webhook-senders.ts';
import { deliveryRows, NOW, NOW_S, SECRETS, send, webhookApp } from './webhooks-kit.ts';

const URL = '/api/webhooks/mailer';
const SECRET = SECRETS.MAILER_WEBHOOK_SECRET;

function event(type: string, to: string[], bounce?: Record<string, unknown>) {
  return {
    type,
    created_at: NOW.toISOString(),
    data: {
      email_id: '4ef9a417-02e9-4d39-ad75-9611e0fcc33c',
      from: 'Trading <no-reply@example.com>',
      to,
      subject: 'Your report',
      created_at: NOW.toISOString(),
      ...(bounce ? { bounce } : {}),
    },
  };
}

describe('mailer webhook (Resend, Svix signatures)', () => {
  let t: TestApp;
  before(async () => {
    ({ t } = await webhookApp());
  });
  after(async () => {
    await t.close();
  });
  const suppressed = async () =>
    t.database.rows<{ email: string; reason: string }>(
      sql`SELECT email, reason FROM email_suppressions ORDER BY email`,
    );

  it('suppresses every recipient of a hard bounce, so that no further mail is queued for them', async () => {
    const delivery = svixDelivery(
      SECRET,
      event('email.bounced', ['Bounce@Example.com', 'second@example.com'], {
        type: 'Permanent',
        subType: 'General',
        message: 'mailbox does not exist',
      }),
      { timestamp: NOW_S },
    );
    const response = await send(t, URL, delivery);
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), {
      status: 'processed',
      provider: 'mailer',
      event: 'email.bounced',
      delivery_id: delivery.headers['svix-id'],
    });
    const rows = await suppressed();
    assert.deepEqual(
      rows.filter((r) => r.reason === 'bounced').map((r) => r.email),
      ['bounce@example.com', 'second@example.com'],
    );
    const result = await t.modules.notifications.messages.mail(
      t.database.db,
      { to: 'bounce@example.com', subject: 'Hello', text: 'Hi' },
      NOW,
    );
    assert.deepEqual(result, { queued: false, reason: 'suppressed' });
    const audits = await t.database.rows<{ action: string; actor_type: string }>(
      sql`SELECT action, actor_type FROM audit_log WHERE action = 'mail.suppression.add'`,
    );
    assert.equal(audits.length, 2);
    assert.equal(audits[0]!.actor_type, 'webhook');
  });

  it('suppresses the recipient of a complaint, signed with the spec header x-mailer-signature', async () => {
    const response = await send(t, URL, mailerSpecDelivery(SECRET, event('email.complained', ['angry@example.com'])));
    assert.equal(response.statusCode, 200);
    assert.match(response.json().delivery_id, /^sha256:/);
    assert.ok((await suppressed()).some((r) => r.email === 'angry@example.com' && r.reason === 'complained'));
  });

  it('does not suppress a transient bounce or a delivered mail', async () => {
    await send(
      t,
      URL,
      svixDelivery(SECRET, event('email.bounced', ['soft@example.com'], { type: 'Transient' }), { timestamp: NOW_S }),
    );
    await send(t, URL, svixDelivery(SECRET, event('email.delivered', ['fine@example.com']), { timestamp: NOW_S }));
    const emails = (await suppressed()).map((r) => r.email);
    assert.ok(!emails.includes('soft@example.com'));
    assert.ok(!emails.includes('fine@example.com'));
  });

  it('acknowledges a redelivered svix-id as duplicate', async () => {
    const delivery = svixDelivery(SECRET, event('email.bounced', ['again@example.com']), {
      timestamp: NOW_S,
      id: 'msg_redelivered',
    });
    assert.equal((await send(t, URL, delivery)).json().status, 'processed');
    assert.equal((await send(t, URL, delivery)).json().status, 'duplicate');
    assert.equal((await deliveryRows(t, 'mailer')).filter((r) => r.delivery_id === 'msg_redelivered').length, 1);
  });

  it(
    'answers 401 for a wrong Svix signature, a stale ' + 'timestamp, a wrong x-mailer-signature and none at all',
    async () => {
      const body = event('email.bounced', ['never@example.com']);
      const wrong = await send(t, URL, svixDelivery('whsec_bm90IHRoZSBzZWNyZXQ=', body, { timestamp: NOW_S }));
      assert.deepEqual([wrong.statusCode, wrong.json()], [401, { detail: 'Invalid webhook signature' }]);
      const stale = await send(t, URL, svixDelivery(SECRET, body, { timestamp: NOW_S - 301 }));
      assert.deepEqual(
        [stale.statusCode, stale.json()],
        [401, { detail: 'Webhook timestamp is outside the tolerance window' }],
      );
      assert.equal((await send(t, URL, mailerSpecDelivery('wrong', body))).statusCode, 401);
      const none = await send(t, URL, mailerSpecDelivery(SECRET, body), { 'x-mailer-signature': undefined });
      assert.deepEqual([none.statusCode, none.json()], [401, { detail: 'Missing webhook signature' }]);
      assert.ok(!(await suppressed()).some((r) => r.email === 'never@example.com'));
    },
  );

  it('reports every missing body field in the Pydantic shape', async () => {
    const response = await send(t, URL, mailerSpecDelivery(SECRET, { data: 'not an object' }));
    assert.equal(response.statusCode, 422);
    const detail = response.json().detail as { type: string; loc: (string | number)[] }[];
    assert.deepEqual(detail.map((d) => [d.type, d.loc]).sort(), [
      ['dict_type', ['body', 'data']],
      ['missing', ['body', 'created_at']],
      ['missing', ['body', 'type']],
    ]);
  });

  it('answers the mail webhook health as a string map', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/webhooks/health' });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.status, 'ok');
    assert.equal(body.mailer_secret, 'configured');
    assert.equal(body.last_delivery_at, NOW.toISOString());
    for (const value of Object.values(body)) assert.equal(typeof value, 'string');
  });
});
