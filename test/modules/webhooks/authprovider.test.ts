import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { emailSuppressions } from '../../../src/modules/notifications/notifications.tables.ts';
import { externalIdentities } from '../../../src/modules/users/users.tables.ts';
import { signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { bearerDelivery, mailerSpecDelivery, supabaseHookDelivery } from '../../fakes/webhook-senders.ts';
import { deliveryRows, NOW, NOW_S, outboxRows, SECRETS, send, webhookApp } from './webhooks-kit.ts';

const URL = '/api/webhooks/platforms/authprovider/auth-hook';
const SECRET = SECRETS.AUTHPROVIDER_HOOK_SECRET;

const ISSUER = 'https://project.supabase.co/auth/v1';

/**
 * A token hook's input as Supabase sends it, with the top-level `email_verified` a deployment adds for a
 * confirmed address (`verified`). Its `user_metadata`, the user's own to write, always claims one.
 */
function tokenHookInput(
  email: string,
  userId = randomUUID(),
  options: { verified?: boolean; anonymous?: boolean } = {},
) {
  return {
    user_id: userId,
    claims: {
      iss: ISSUER,
      aud: 'authenticated',
      exp: NOW_S + 3600,
      iat: NOW_S,
      sub: userId,
      role: 'authenticated',
      aal: 'aal1',
      session_id: randomUUID(),
      email,
      phone: '',
      is_anonymous: options.anonymous ?? false,
      app_metadata: { provider: 'email', providers: ['email'] },
      email_verified: options.verified ?? true,
      user_metadata: { email, email_verified: true, phone_verified: false, sub: userId },
      amr: [{ method: 'password', timestamp: NOW_S }],
    },
    authentication_method: 'password',
  };
}

function emailHookInput(type: string, user: Record<string, unknown>, data: Record<string, unknown> = {}) {
  return {
    user: {
      id: randomUUID(),
      aud: 'authenticated',
      role: 'authenticated',
      phone: '',
      app_metadata: {},
      user_metadata: {},
      identities: [],
      is_anonymous: false,
      ...user,
    },
    email_data: {
      token: '305805',
      token_hash: '7d5b7b1964cf5d388340a7f04f1dbb5eeb6c7b52ef8270e1737a58d0',
      redirect_to: 'https://app.example.com/welcome',
      email_action_type: type,
      site_url: 'https://project.supabase.co/auth/v1',
      token_new: '',
      token_hash_new: '',
      ...data,
    },
  };
}

describe('auth provider hook (Supabase Auth)', () => {
  let t: TestApp;
  let admin: TestUser;
  const patchUser = async (userId: string, payload: object) => {
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/users/${userId}`,
      payload,
      headers: admin.headers,
    });
    assert.equal(response.statusCode, 200, response.body);
  };
  before(async () => {
    ({ t } = await webhookApp());
    admin = await signIn(t.app, t.database, { role: 'admin', email: 'admin@example.com' });
    await patchUser(admin.id, { subscriptionTier: 'pro' });
  });
  after(async () => {
    await t.close();
  });

  describe('custom access token', () => {
    it('keeps every claim and adds our role and tier (Standard Webhooks signature, v1,whsec_ secret)', async () => {
      const input = tokenHookInput('Admin@Example.com');
      const response = await send(t, URL, supabaseHookDelivery(SECRET, input, { timestamp: NOW_S }));
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { claims: { ...input.claims, user_role: 'admin', subscription_tier: 'pro' } });
      const [stored] = (await deliveryRows(t, 'authprovider')).filter((r) => r.event === 'custom_access_token');
      assert.equal(stored?.verified, true);
      assert.equal((stored!.payload as { claims: { email: string } }).claims.email, 'Admin@Example.com');
    });

    it('accepts the bearer secret instead, and answers the same hook asked again the same way', async () => {
      const delivery = bearerDelivery(SECRET, tokenHookInput('admin@example.com'));
      const first = await send(t, URL, delivery);
      const second = await send(t, URL, delivery);
      assert.equal(first.statusCode, 200);
      assert.equal(first.json().claims.user_role, 'admin');
      assert.deepEqual(second.json(), first.json());
    });

    it('leaves the claims of someone we do not know unchanged', async () => {
      const input = tokenHookInput('stranger@example.com');
      const response = await send(t, URL, bearerDelivery(SECRET, input));
      assert.deepEqual(response.json(), { claims: input.claims });
    });

    it('gives no role of ours to an address the provider has not verified, nor to an anonymous user', async () => {
      // The first has only its own metadata's word for the address (decision 900).
      for (const input of [
        tokenHookInput('admin@example.com', randomUUID(), { verified: false }),
        tokenHookInput('admin@example.com', randomUUID(), { anonymous: true }),
      ]) {
        const response = await send(t, URL, bearerDelivery(SECRET, input));
        assert.equal(response.statusCode, 200, response.body);
        assert.deepEqual(response.json(), { claims: input.claims });
      }
    });

    it("gives the linked account's role to its provider user, and none to another user with its address", async () => {
      const linkedUser = await signIn(t.app, t.database, { role: 'admin', email: 'linked@example.com' });
      const subject = randomUUID();
      await t.database.db
        .insert(externalIdentities)
        .values({ issuer: ISSUER, subject, userId: linkedUser.id, linkedAt: new Date(NOW) });
      // The linked user changed its address at the provider: still the same account.
      const moved = await send(t, URL, bearerDelivery(SECRET, tokenHookInput('elsewhere@example.com', subject)));
      assert.equal(moved.json().claims.user_role, 'admin');
      // Someone else at the provider now holds the address, verified: not that account.
      const other = tokenHookInput('linked@example.com');
      const response = await send(t, URL, bearerDelivery(SECRET, other));
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), { claims: other.claims });
    });

    it('refuses a token to a suspended user with the provider error shape', async () => {
      const user = await signIn(t.app, t.database, { email: 'suspended@example.com' });
      await patchUser(user.id, { status: 'suspended' });
      const response = await send(t, URL, bearerDelivery(SECRET, tokenHookInput('suspended@example.com')));
      assert.equal(response.statusCode, 403);
      assert.deepEqual(response.json(), {
        detail: 'User account is suspended',
        error: { http_code: 403, message: 'User account is suspended' },
      });
    });

    it('answers 401 in both shapes for a wrong bearer, a missing one, a wrong and a stale signature', async () => {
      const input = tokenHookInput('admin@example.com');
      const wrong = await send(t, URL, bearerDelivery('not-the-secret', input));
      assert.deepEqual(
        [wrong.statusCode, wrong.json()],
        [401, { detail: 'Invalid bearer token', error: { http_code: 401, message: 'Invalid bearer token' } }],
      );
      const missing = await send(t, URL, bearerDelivery(SECRET, input), { authorization: undefined });
      assert.equal(missing.statusCode, 401);
      assert.equal(missing.json().error.message, 'Missing bearer token');
      const forged = await send(
        t,
        URL,
        supabaseHookDelivery(`v1,whsec_${Buffer.alloc(24, 9).toString('base64')}`, input, { timestamp: NOW_S }),
      );
      assert.deepEqual([forged.statusCode, forged.json().detail], [401, 'Invalid webhook signature']);
      const stale = await send(t, URL, supabaseHookDelivery(SECRET, input, { timestamp: NOW_S - 301 }));
      assert.deepEqual(
        [stale.statusCode, stale.json().detail],
        [401, 'Webhook timestamp is outside the tolerance window'],
      );
    });

    it('answers 400 for a payload that is neither hook, and keeps no delivery of it (decision 099)', async () => {
      const before = (await deliveryRows(t, 'authprovider')).length;
      const response = await send(t, URL, bearerDelivery(SECRET, { hello: 'world' }));
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().error.http_code, 400);
      assert.equal((await deliveryRows(t, 'authprovider')).length, before);
    });
  });

  describe('send email', () => {
    const mails = async () => outboxRows(t, 'authprovider', 'mail.send');
    const open = (payload: Record<string, unknown>) =>
      JSON.parse(
        t.platform.secretBox.open(String(payload.sealed), {
          table: 'outbox',
          column: 'payload.sealed',
          row: String(payload.to),
        }),
      ) as { text: string };

    it('queues the sign-up mail with its code and verification link, sealed, and answers {}', async () => {
      const delivery = supabaseHookDelivery(SECRET, emailHookInput('signup', { email: 'newcomer@example.com' }), {
        timestamp: NOW_S,
        id: 'msg_signup',
      });
      const response = await send(t, URL, delivery);
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), {});
      const [mail] = (await mails()).filter((m) => m.dedupe_key?.startsWith('authprovider:msg_signup'));
      assert.equal(mail?.payload.to, 'newcomer@example.com');
      assert.equal(mail?.payload.subject, 'Confirm your sign-up');
      assert.equal(mail?.payload.text, undefined);
      const { text } = open(mail!.payload);
      assert.match(text, /305805/);
      assert.ok(
        text.includes(
          'https://project.supabase.co/auth/v1/verify?token=7d5b7b1964cf5d388340a7f04f1dbb5eeb6c7b52ef8270e1737a58d0' +
            '&type=signup&redirect_to=https%3A%2F%2Fapp.example.com%2Fwelcome',
        ),
      );
      // The one-time code is not kept in the stored delivery.
      const [stored] = (await deliveryRows(t, 'authprovider')).filter((r) => r.delivery_id === 'msg_signup');
      assert.ok(!JSON.stringify(stored?.payload).includes('305805'));

      assert.deepEqual((await send(t, URL, delivery)).json(), {});
      assert.equal((await mails()).filter((m) => m.dedupe_key?.startsWith('authprovider:msg_signup')).length, 1);
    });

    it('sends the code without a link when site_url is no web address, instead of failing the hook', async () => {
      for (const [n, siteUrl] of ['not a url', 'javascript:alert(1)//'].entries()) {
        const input = emailHookInput('signup', { email: `odd-site-${n}@example.com` }, { site_url: siteUrl });
        const response = await send(
          t,
          URL,
          supabaseHookDelivery(SECRET, input, { timestamp: NOW_S, id: `msg_odd_${n}` }),
        );
        assert.equal(response.statusCode, 200, response.body);
        const [mail] = (await mails()).filter((m) => m.dedupe_key?.startsWith(`authprovider:msg_odd_${n}`));
        const { text } = open(mail!.payload);
        assert.match(text, /Code: 305805/);
        assert.ok(!text.includes('verify') && !text.includes('javascript'), text);
      }
    });

    it("sends the two mails of a secure e-mail change with the provider's token pairing", async () => {
      const input = emailHookInput(
        'email_change',
        { email: 'old@example.com', new_email: 'new@example.com' },
        {
          token: '111111',
          token_hash_new: 'hash-for-current-address',
          token_new: '222222',
          token_hash: 'hash-for-new-address',
        },
      );
      await send(t, URL, supabaseHookDelivery(SECRET, input, { timestamp: NOW_S, id: 'msg_change' }));
      const sent = (await mails()).filter((m) => m.dedupe_key?.startsWith('authprovider:msg_change'));
      assert.deepEqual(sent.map((m) => m.payload.to).sort(), ['new@example.com', 'old@example.com']);
      const toOld = open(sent.find((m) => m.payload.to === 'old@example.com')!.payload).text;
      const toNew = open(sent.find((m) => m.payload.to === 'new@example.com')!.payload).text;
      assert.match(toOld, /111111/);
      assert.match(toOld, /token=hash-for-current-address/);
      assert.match(toNew, /222222/);
      assert.match(toNew, /token=hash-for-new-address/);
    });

    it('answers 400 when the address is suppressed, and queues nothing', async () => {
      // The mail provider reports a hard bounce, which suppresses the address.
      const bounce = mailerSpecDelivery(SECRETS.MAILER_WEBHOOK_SECRET, {
        type: 'email.bounced',
        created_at: NOW.toISOString(),
        data: {
          email_id: 'bounce-1',
          to: ['bounced@example.com'],
          subject: 'Reset',
          created_at: NOW.toISOString(),
          bounce: { type: 'Permanent', subType: 'General' },
        },
      });
      assert.equal((await send(t, '/api/webhooks/mailer', bounce)).json().status, 'processed');
      const response = await send(
        t,
        URL,
        supabaseHookDelivery(SECRET, emailHookInput('recovery', { email: 'bounced@example.com' }), {
          timestamp: NOW_S,
          id: 'msg_suppressed',
        }),
      );
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().error.message, 'Mail to this address is suppressed after a bounce or complaint');
      assert.equal((await mails()).filter((m) => m.dedupe_key?.startsWith('authprovider:msg_suppressed')).length, 0);
      // A refused delivery is not kept: once the address is lifted, the same delivery sent again is processed.
      assert.ok(!(await deliveryRows(t, 'authprovider')).some((row) => row.delivery_id === 'msg_suppressed'));
      // No operation lifts a suppression: the row is deleted from its table.
      await t.database.db.delete(emailSuppressions).where(eq(emailSuppressions.email, 'bounced@example.com'));
      const again = await send(
        t,
        URL,
        supabaseHookDelivery(SECRET, emailHookInput('recovery', { email: 'bounced@example.com' }), {
          timestamp: NOW_S,
          id: 'msg_suppressed',
        }),
      );
      assert.deepEqual([again.statusCode, again.json()], [200, {}]);
      assert.equal((await mails()).filter((m) => m.dedupe_key?.startsWith('authprovider:msg_suppressed')).length, 1);
    });
  });
});
