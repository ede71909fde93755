// Revocation reaches open account streams (issue 37): a stream opened with an API token ends when the
// token is revoked or expires, one opened with a session when the session is signed out; and an
// admin's API token receives admin events only with `admin:read`. A real EventSource client against a
// listening app; each test waits for the stream's `end` event, not for a time.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../../src/platform/clock.ts';
import { follow } from '../../helpers/sse-client.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

describe('revocation reaches open account streams', () => {
  const clock = fixedClock(new Date());
  let t: TestApp;
  let base: string;
  before(async () => {
    t = await buildTestApp({ clock });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    await t.close();
  });

  const makeToken = async (user: TestUser, scopes: string[], expiresInDays = 30) => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/tokens',
      headers: user.headers,
      payload: { name: 'stream bot', scopes, expires_in_days: expiresInDays },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json<{ id: string; token: string }>();
  };
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const publishOwn = (userId: string, credentialId: string) =>
    t.modules.streams.publisher.user(userId, 'credential.changed', {
      credential_id: credentialId,
      exchange: 'binanceus',
      change: 'created',
      changed_fields: [],
    });

  it('a stream opened with an API token ends when the token is revoked, and does not open again', async () => {
    const user = await signIn(t.app, t.database);
    const { id, token } = await makeToken(user, ['stream:read']);
    const stream = follow(`${base}/api/stream`, { headers: bearer(token) });
    try {
      await stream.opened;
      await publishOwn(user.id, crypto.randomUUID());
      await stream.waitFor((e) => e.type === 'credential.changed', 5_000, 'an event before the revocation');
      const revoked = await t.app.inject({ method: 'DELETE', url: `/api/auth/tokens/${id}`, headers: user.headers });
      assert.equal(revoked.statusCode, 204, revoked.body);
      const end = await stream.waitFor((e) => e.type === 'end', 5_000, 'the end of the revoked token’s stream');
      assert.equal(end.data.reason, 'revoked');
      assert.equal((await fetch(`${base}/api/stream`, { headers: bearer(token) })).status, 401);
    } finally {
      stream.close();
    }
  });

  it("a stream opened with an API token's ticket ends when the token is revoked", async () => {
    const user = await signIn(t.app, t.database);
    const { id, token } = await makeToken(user, ['stream:read']);
    const issued = await t.app.inject({ method: 'POST', url: '/api/stream/ticket', headers: bearer(token) });
    assert.equal(issued.statusCode, 200, issued.body);
    const stream = follow(`${base}/api/stream?ticket=${issued.json<{ ticket: string }>().ticket}`);
    try {
      await stream.opened;
      await t.app.inject({ method: 'DELETE', url: `/api/auth/tokens/${id}`, headers: user.headers });
      const end = await stream.waitFor((e) => e.type === 'end', 5_000, 'the end of the ticket’s stream');
      assert.equal(end.data.reason, 'revoked');
    } finally {
      stream.close();
    }
  });

  it('a stream opened with an API token ends when the token expires', async () => {
    const user = await signIn(t.app, t.database);
    const { token } = await makeToken(user, ['stream:read'], 1);
    const stream = follow(`${base}/api/stream`, { headers: bearer(token) });
    try {
      await stream.opened;
      clock.advance(24 * 60 * 60 * 1000 + 1_000);
      const end = await stream.waitFor((e) => e.type === 'end', 5_000, 'the end of the expired token’s stream');
      assert.equal(end.data.reason, 'revoked');
    } finally {
      stream.close();
    }
  });

  it("signing out ends the session's stream", async () => {
    const user = await signIn(t.app, t.database);
    const stream = follow(`${base}/api/stream`, { headers: user.headers });
    try {
      await stream.opened;
      const out = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: user.headers });
      assert.equal(out.statusCode, 200, out.body);
      const end = await stream.waitFor((e) => e.type === 'end', 5_000, 'the end of the signed-out stream');
      assert.equal(end.data.reason, 'revoked');
    } finally {
      stream.close();
    }
  });

  it("an admin's API token receives admin events only with admin:read", async () => {
    const admin = await signIn(t.app, t.database, { role: 'admin' });
    const own = await makeToken(admin, ['stream:read']);
    const wide = await makeToken(admin, ['stream:read', 'admin:read']);
    const narrow = follow(`${base}/api/stream`, { headers: bearer(own.token) });
    const full = follow(`${base}/api/stream`, { headers: bearer(wide.token) });
    const issued = await t.app.inject({ method: 'POST', url: '/api/stream/ticket', headers: bearer(own.token) });
    const viaTicket = follow(`${base}/api/stream?ticket=${issued.json<{ ticket: string }>().ticket}`);
    try {
      await Promise.all([narrow.opened, full.opened, viaTicket.opened]);
      await t.modules.streams.publisher.admins('webhook.received', {
        provider: 'payments',
        event: 'invoice.paid',
        delivery_id: crypto.randomUUID(),
        status: 'processed',
      });
      const marker = crypto.randomUUID();
      // Published after the admin event, on the same channel: once it arrives, the admin event has
      // arrived too wherever it was going to.
      await publishOwn(admin.id, marker);
      await full.waitFor((e) => e.type === 'webhook.received', 5_000, 'the admin event, with admin:read');
      for (const stream of [narrow, viaTicket]) {
        await stream.waitFor(
          (e) => e.type === 'credential.changed' && (e.data.data as { credential_id: string }).credential_id === marker,
          5_000,
          "the admin's own event",
        );
        assert.deepEqual(
          stream.events.filter((e) => e.type === 'webhook.received'),
          [],
          'no admin event without admin:read',
        );
      }
    } finally {
      narrow.close();
      full.close();
      viaTicket.close();
    }
  });
});
