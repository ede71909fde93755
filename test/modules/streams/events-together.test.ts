// Account events published together (decision 760): the publications of one turn of the event loop, or
// made while an insert is in flight, are stored in one statement, and the notices they bring have their
// users' preferences read by it (decision 870), where each publication took an insert and each notice a read of its own
// (the live orders answered together, each publishing its states and reading its user's choice). Each
// event is still an event of its own, in the order of its publication, and each user's choice still
// decides; a publication the column refuses drops only its own events.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { recordStatements } from '../../helpers/statements.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { waitFor } from '../../helpers/wait.ts';

describe('account events published together', () => {
  let t: TestApp;
  let users: TestUser[];
  before(async () => {
    t = await buildTestApp();
    users = [];
    for (let i = 0; i < 5; i++) users.push(await signIn(t.app, t.database));
    // Their notices are mailed: only to a verified address (decision 840).
    for (const user of users) await t.modules.admin.users.updateUser(user.id, { emailVerified: true }, { id: null });
  });
  after(() => t.close());

  const halted = (reason: string) => ({ cause: 'user', reason, until: null });
  const storedReasons = (userIds: readonly string[]) =>
    t.database.rows<{ user_id: string; reason: string }>(
      sql`SELECT user_id, data->>'reason' AS reason FROM stream_events
        WHERE type = 'trading.halted' AND user_id = ANY(${`{${userIds.join(',')}}`}::uuid[]) ORDER BY id`,
    );

  it('stores them in one insert, which reads their notices’ preferences too, each user’s choice deciding', async () => {
    // The first two chose what they hear of: one the halts, by mail; one only fills. The others keep the
    // defaults (mail, halts included).
    const put = (user: TestUser, events: string[]) =>
      t.app.inject({
        method: 'PUT',
        url: '/api/notifications/preferences',
        headers: user.headers,
        payload: { channels: [{ type: 'email' }], events },
      });
    assert.equal((await put(users[0]!, ['trading.halted'])).statusCode, 200);
    assert.equal((await put(users[1]!, ['order.filled'])).statusCode, 200);
    const observed: string[] = [];
    const unobserve = t.modules.streams.observe((event) => {
      if (event.type === 'trading.halted') observed.push((event.data as { reason: string }).reason);
    });
    const recorded = recordStatements(t.database);
    try {
      await Promise.all(
        users.map((user, i) => t.modules.streams.publisher.user(user.id, 'trading.halted', halted(`together ${i}`))),
      );
      await waitFor(
        async () =>
          (
            await t.database.rows<{ n: number }>(
              sql`SELECT count(*)::int AS n FROM outbox WHERE kind = 'mail.send' AND dedupe_key LIKE 'notify:%'`,
            )
          )[0]!.n >= 4,
        'the halts’ mails queued',
      );
    } finally {
      recorded.stop();
      unobserve();
    }
    const texts = recorded.texts.map((text) => text.replace(/\s+/g, ' '));
    const listed = texts.map((text) => text.slice(0, 100)).join('\n');
    assert.equal(texts.filter((text) => /INSERT INTO "stream_events"/.test(text)).length, 1, listed);
    // The preferences are read by that insert, beside each event (decision 870), not by a statement of their own.
    assert.match(texts.find((text) => /INSERT INTO "stream_events"/.test(text))!, /"notification_preferences"/);
    assert.equal(texts.filter((text) => /"notification_preferences"/.test(text)).length, 1, listed);
    // Each an event of its own, in the order published, observed once each.
    const ids = users.map((u) => u.id);
    assert.deepEqual(
      (await storedReasons(ids)).map((r) => r.reason),
      users.map((_, i) => `together ${i}`),
    );
    assert.deepEqual(
      observed,
      users.map((_, i) => `together ${i}`),
    );
    // Told by mail: the one who chose halts and the three on the defaults; not the one who chose only fills.
    const mailed = await t.database.rows<{ to: string }>(
      sql`SELECT payload->>'to' AS to FROM outbox WHERE kind = 'mail.send' AND dedupe_key LIKE 'notify:%'`,
    );
    assert.deepEqual(
      mailed.map((m) => m.to).sort(),
      [users[0]!, users[2]!, users[3]!, users[4]!].map((u) => u.email).sort(),
    );
  });

  it('drops only the events of a publication the column refuses, stores the rest in order', async () => {
    const [a, b, c] = users;
    // PostgreSQL's jsonb refuses the NUL character: that publication's insert fails, as it did alone.
    await Promise.all([
      t.modules.streams.publisher.user(a!.id, 'trading.halted', halted('kept 1')),
      t.modules.streams.publisher.user(b!.id, 'trading.halted', halted('refused \u0000')),
      t.modules.streams.publisher.user(c!.id, 'trading.halted', halted('kept 2')),
    ]);
    const stored = await storedReasons([a!.id, b!.id, c!.id]);
    assert.deepEqual(
      stored.filter((r) => r.reason.startsWith('kept') || r.reason.startsWith('refused')).map((r) => r.reason),
      ['kept 1', 'kept 2'],
    );
  });
});
