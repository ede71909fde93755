// GET /api/stream and POST /api/stream/ticket, with a real EventSource client against a listening app:
// who gets which events, tickets, Last-Event-ID replay (also across a restart), suspension, limits.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { follow } from '../../helpers/sse-client.ts';
import { storeVenueCredential } from '../../helpers/venue-credentials.ts';
import { startVenueFakes, type VenueFakes } from '../exchange/venue-fakes.ts';

const JOB_SECRET = 'job-secret-for-the-stream-tests-0123456789';
const KEY = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
const SECRET = 'sEcReT-0123456789-abcdefghijklmnopqrstuvwxyz';

describe('the account stream', () => {
  let fakes: VenueFakes;
  let t: TestApp;
  let base: string;
  let alice: TestUser;
  let bob: TestUser;
  let admin: TestUser;
  const env = () => ({ ...fakes.env(), SCHEDULED_JOB_SECRET: JOB_SECRET, STREAM_MAX_PER_USER: '2' });

  before(async () => {
    fakes = await startVenueFakes();
    t = await buildTestApp({ env: env() });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    alice = await signIn(t.app, t.database);
    bob = await signIn(t.app, t.database);
    admin = await signIn(t.app, t.database, { role: 'admin' });
  });
  after(async () => {
    await t.close();
    await fakes.close();
  });

  const createCredential = async (user: TestUser, name: string) => {
    const keys = { apiKey: KEY, secret: SECRET };
    return (await storeVenueCredential(t.app, user, 'binanceus', keys, { credential_name: name })).id;
  };
  const runJob = async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/scheduled/cleanup-expired-tokens',
      headers: { 'x-scheduled-job-secret': JOB_SECRET },
    });
    // 202: it started the run; 200: the job's trigger window covered it by the run before
    // (both are heard as job.finished).
    assert.ok([200, 202].includes(response.statusCode), response.body);
  };
  const stream = (user: TestUser, headers: Record<string, string> = {}, query = '') =>
    follow(`${base}/api/stream${query}`, { headers: { ...user.headers, ...headers } });

  it("sends the caller's own events with ids, admin events only to admins, nothing of other users", async () => {
    const a = stream(alice);
    const b = stream(bob);
    const root = stream(admin);
    try {
      await Promise.all([a.opened, b.opened, root.opened]);
      const credentialId = await createCredential(alice, 'Main');
      await runJob();

      const changed = await a.waitFor((e) => e.type === 'credential.changed', 3_000, 'credential.changed');
      assert.match(changed.id, /^\d+$/);
      assert.deepEqual(changed.data.data, {
        credential_id: credentialId,
        exchange: 'binanceus',
        change: 'created',
        changed_fields: [],
      });
      assert.equal(changed.data.id, changed.id);
      assert.equal(changed.data.type, 'credential.changed');
      assert.ok(!JSON.stringify(changed.data).includes(KEY), 'no key in the event');

      const job = await root.waitFor((e) => e.type === 'job.finished', 3_000, 'job.finished');
      assert.equal((job.data.data as { job: string }).job, 'cleanup-expired-tokens');
      assert.equal((job.data.data as { status: string }).status, 'succeeded');

      // Bob and the admin hear nothing of Alice's account; Alice nothing of the jobs.
      await runJob();
      await root.waitFor((e) => e.type === 'job.finished' && e.id !== job.id, 3_000, 'a second job.finished');
      assert.deepEqual(b.events, []);
      assert.ok(!root.events.some((e) => e.type === 'credential.changed'));
      assert.ok(!a.events.some((e) => e.type === 'job.finished'));
    } finally {
      for (const s of [a, b, root]) s.close();
    }
  });

  it(
    'refuses callers without credentials (401), bad Last-Event-ID ' + '(422), and a user over the per-user limit (429)',
    async () => {
      const anonymous = await fetch(`${base}/api/stream`);
      assert.equal(anonymous.status, 401);
      assert.deepEqual(await anonymous.json(), { detail: 'Not authenticated' });
      assert.equal(anonymous.headers.get('www-authenticate'), 'Bearer');
      const badToken = await fetch(`${base}/api/stream`, { headers: { authorization: 'Bearer nope' } });
      assert.equal(badToken.status, 401);

      const bad = await fetch(`${base}/api/stream`, { headers: { ...alice.headers, 'last-event-id': 'yesterday' } });
      assert.equal(bad.status, 422);
      const issue = ((await bad.json()) as { detail: { loc: string[]; type: string }[] }).detail[0]!;
      assert.deepEqual([issue.type, issue.loc], ['value_error', ['header', 'last-event-id']]);

      const first = stream(bob);
      const second = stream(bob);
      try {
        await Promise.all([first.opened, second.opened]);
        const third = await fetch(`${base}/api/stream`, { headers: bob.headers });
        assert.equal(third.status, 429);
        assert.ok(Number(third.headers.get('retry-after')) >= 1);
        assert.match(((await third.json()) as { detail: string }).detail, /At most 2 open streams per user/);
      } finally {
        first.close();
        second.close();
      }
    },
  );

  it('accepts a single-use ticket instead of the header, valid for one stream', async () => {
    const issued = await t.app.inject({ method: 'POST', url: '/api/stream/ticket', headers: alice.headers });
    assert.equal(issued.statusCode, 200);
    const { ticket, expires_in } = issued.json<{ ticket: string; expires_in: number }>();
    assert.equal(expires_in, 60);
    assert.equal((await t.app.inject({ method: 'POST', url: '/api/stream/ticket' })).statusCode, 401);

    const viaTicket = follow(`${base}/api/stream?ticket=${ticket}`);
    try {
      await viaTicket.opened;
      await createCredential(alice, 'Ticketed');
      await viaTicket.waitFor((e) => e.type === 'credential.changed', 3_000, 'an event on the ticketed stream');
    } finally {
      viaTicket.close();
    }
    const again = await fetch(`${base}/api/stream?ticket=${ticket}`);
    assert.equal(again.status, 401, 'a ticket is good for one stream');
    assert.equal((await fetch(`${base}/api/stream?ticket=${'x'.repeat(43)}`)).status, 401);
    assert.ok(!t.logText().includes(ticket), 'the ticket is never logged');
  });

  it('replays what was missed after Last-Event-ID, then continues live', async () => {
    const first = stream(alice);
    let lastId: string;
    try {
      await first.opened;
      await createCredential(alice, 'Before');
      lastId = (await first.waitFor((e) => e.type === 'credential.changed', 3_000)).id;
    } finally {
      first.close();
    }
    const missed = [await createCredential(alice, 'Missed 1'), await createCredential(alice, 'Missed 2')];

    const resumed = stream(alice, { 'last-event-id': lastId });
    try {
      await resumed.opened;
      await resumed.waitFor(
        (e) => (e.data.data as { credential_id: string }).credential_id === missed[1],
        3_000,
        'the replay',
      );
      const live = await createCredential(alice, 'Live');
      await resumed.waitFor(
        (e) => (e.data.data as { credential_id: string }).credential_id === live,
        3_000,
        'the live event',
      );
      const ids = resumed.events.map((e) => (e.data.data as { credential_id: string }).credential_id);
      assert.deepEqual(ids, [...missed, live], 'the missed ones in order, then live, each once');
      const seq = resumed.events.map((e) => BigInt(e.id));
      assert.ok(seq.every((id, i) => i === 0 || id > seq[i - 1]!));
    } finally {
      resumed.close();
    }
    // The same through the query, as a browser opening a new EventSource sends it.
    const viaQuery = stream(alice, {}, `?last_event_id=${lastId}`);
    try {
      await viaQuery.waitFor(
        (e) => (e.data.data as { credential_id: string }).credential_id === missed[1],
        3_000,
        'the replay via the query',
      );
    } finally {
      viaQuery.close();
    }
  });

  it('ends the stream of a user suspended by an admin within 2 s', async () => {
    const victim = await signIn(t.app, t.database);
    const watched = stream(victim);
    try {
      await watched.opened;
      const suspended = await t.app.inject({
        method: 'PATCH',
        url: `/api/admin/users/${victim.id}`,
        headers: admin.headers,
        payload: { status: 'suspended' },
      });
      assert.equal(suspended.statusCode, 200, suspended.body);
      const end = await watched.waitFor((e) => e.type === 'end', 2_000, "the end of the suspended user's stream");
      assert.equal(end.data.reason, 'suspended');
      assert.equal((await fetch(`${base}/api/stream`, { headers: victim.headers })).status, 403);
    } finally {
      watched.close();
    }
  });
});

describe('the account stream across a restart and across instances', () => {
  it(
    'replays events stored before a restart, and carries ' + 'an event from one instance to another within 1 s',
    async () => {
      const shared = process.env.REDIS_URL
        ? { REDIS_URL: process.env.REDIS_URL, REDIS_KEY_PREFIX: `test:${process.pid}:${Date.now()}:` }
        : {};
      const one = await buildTestApp({ env: { ...shared } });
      const user = await signIn(one.app, one.database);
      let two: TestApp | undefined;
      let three: TestApp | undefined;
      try {
        const base1 = await one.app.listen({ host: '127.0.0.1', port: 0 });
        const first = follow(`${base1}/api/stream`, { headers: user.headers });
        await first.opened;
        await one.modules.streams.publisher.user(user.id, 'balance.synced', {
          exchange: 'binance',
          credential_id: crypto.randomUUID(),
          success: true,
          currencies_synced: 3,
          error_type: null,
        });
        const seen = await first.waitFor((e) => e.type === 'balance.synced', 3_000);
        first.close();
        await one.modules.streams.publisher.user(user.id, 'trades.synced', {
          exchange: 'binance',
          credential_id: crypto.randomUUID(),
          success: true,
          symbols_synced: ['BTC/USDT'],
          trades_synced: 2,
          trades_duplicate: 0,
          error_type: null,
        });
        await one.close();

        // A new instance on the same database: what was stored before the restart is replayed.
        two = await buildTestApp({ env: { ...shared }, keepData: true });
        three = await buildTestApp({ env: { ...shared }, keepData: true });
        const base2 = await two.app.listen({ host: '127.0.0.1', port: 0 });
        await three.app.listen({ host: '127.0.0.1', port: 0 });
        const resumed = follow(`${base2}/api/stream`, { headers: { ...user.headers, 'last-event-id': seen.id } });
        await resumed.waitFor((e) => e.type === 'trades.synced', 3_000, 'the event stored before the restart');

        // Produced on instance three, delivered by instance two.
        // Nothing polls for it: without the channel between instances it would never come.
        await three.modules.streams.publisher.user(user.id, 'credential.changed', {
          credential_id: crypto.randomUUID(),
          exchange: 'binance',
          change: 'deleted',
          changed_fields: [],
        });
        await resumed.waitFor((e) => e.type === 'credential.changed', 5_000, 'the event from the other instance');

        // Events given together (one insert, one call to the bus): each an event of its own on the other
        // instance's stream, in the order given, with increasing ids.
        const credentialId = crypto.randomUUID();
        const changes = ['created', 'updated', 'deleted'] as const;
        await three.modules.streams.publisher.userEach(
          user.id,
          'credential.changed',
          changes.map((change) => ({ credential_id: credentialId, exchange: 'binance', change, changed_fields: [] })),
        );
        const dataOf = (e: { data: Record<string, unknown> }) =>
          e.data.data as { credential_id?: string; change?: string };
        await resumed.waitFor(
          (e) => dataOf(e).credential_id === credentialId && dataOf(e).change === 'deleted',
          5_000,
          'the last of the events given together',
        );
        const together = resumed.events.filter((e) => dataOf(e).credential_id === credentialId);
        assert.deepEqual(
          together.map((e) => dataOf(e).change),
          changes,
        );
        const ids = together.map((e) => BigInt(e.id));
        assert.ok(ids[0]! < ids[1]! && ids[1]! < ids[2]!, `ids in order: ${ids.join(', ')}`);

        // An event past a NOTIFY's size crosses by reference; every event that crossed is the one stored,
        // as a replay of the table gives it (id, time, data).
        const fields = Array.from({ length: 400 }, (_, i) => `field_${i}_${'x'.repeat(20)}`);
        await three.modules.streams.publisher.user(user.id, 'credential.changed', {
          credential_id: credentialId,
          exchange: 'binance',
          change: 'updated',
          changed_fields: fields,
        });
        const large = await resumed.waitFor(
          (e) => (e.data.data as { changed_fields?: string[] }).changed_fields?.length === fields.length,
          5_000,
          'the event too large for a NOTIFY',
        );
        const crossed = resumed.events.filter((e) => BigInt(e.id) > BigInt(seen.id));
        const replayed = follow(`${base2}/api/stream`, { headers: { ...user.headers, 'last-event-id': seen.id } });
        await replayed.waitFor((e) => e.id === large.id, 3_000, 'the replay');
        assert.deepEqual(
          crossed.map((e) => [e.id, e.type, e.data]),
          replayed.events.filter((e) => BigInt(e.id) > BigInt(seen.id)).map((e) => [e.id, e.type, e.data]),
        );
        replayed.close();
        resumed.close();
      } finally {
        await one.close().catch(() => {});
        await two?.close();
        await three?.close();
      }
    },
  );
});
