// An account event's data stored and answered as given, whatever its text holds; one published without data
// refused by name before the insert (not a TypeError from deep inside the statement's parameters), nothing of
// its batch stored, and the publisher not thrown at.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { EventDataError, createEventsRepository } from '../../../src/modules/streams/events.repository.ts';
import { buildTestApp, resetDatabase, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

describe("an account event's data", () => {
  let t: TestApp;
  let user: TestUser;
  before(async () => {
    t = await buildTestApp();
  });
  beforeEach(async () => {
    await resetDatabase(t.database);
    user = await signIn(t.app, t.database);
  });
  after(() => t.close());

  const storedCount = async () =>
    Number((await t.database.rows<{ n: string }>(sql`SELECT count(*) AS n FROM stream_events`))[0]!.n);
  const event = (data: unknown) => ({
    type: 'balance.synced',
    audience: 'user' as const,
    userId: user.id,
    data,
    at: new Date(),
  });

  it('is refused by name before the insert, and the events stored with it in one batch are not stored', async () => {
    const repo = createEventsRepository(t.database.db);
    await assert.rejects(
      repo.insertAll([event({ success: true }), event(undefined)]),
      (error: unknown) =>
        error instanceof EventDataError && error.name === 'EventDataError' && error.type === 'balance.synced',
    );
    assert.equal(await storedCount(), 0);
    // The same batch with data goes in, so the refusal is the data's.
    assert.equal((await repo.insertAll([event({ success: true }), event({ success: false })])).length, 2);
  });

  it('is stored and answered as given, in the order given: quotes, backslashes, non-ASCII text, nesting', async () => {
    const repo = createEventsRepository(t.database.db);
    const given = [
      { quote: 'a "quoted" name', slash: 'C:\\path\\ and \\"', braces: '{1,2}', comma: 'a,b', nul: null },
      { text: 'Zürich – 東京 🚀', nested: { list: [1, 'two', { three: [null, true] }], empty: {} }, n: 1.5 },
      { plain: true },
    ];
    const stored = await repo.insertAll(given.map(event));
    assert.deepEqual(
      stored.map(({ event }) => event.data),
      given,
    );
    const rows = await t.database.rows<{ data: unknown }>(sql`SELECT data FROM stream_events ORDER BY id`);
    assert.deepEqual(
      rows.map((row) => row.data),
      given,
    );
  });

  it('does not throw at its publisher; the refusal is logged with its name and the type', async () => {
    const publisher = t.modules.streams.publisher as {
      user(userId: string, type: string, data: unknown): Promise<void>;
    };
    await publisher.user(user.id, 'balance.synced', undefined);
    assert.equal(await storedCount(), 0);
    const line = t.logLines().find((l) => l.msg === 'account event could not be stored; not delivered');
    assert.equal((line?.err as { type?: string } | undefined)?.type, 'EventDataError');
    assert.equal(line?.type, 'balance.synced');
  });
});
