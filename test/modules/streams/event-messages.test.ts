// An account event's bus message has one definition, the statement storing the event (decision 491).
// Whichever bus carries it, what a receiver parses is the event the publisher dispatched and a replay
// reads, field for field: data with nulls, unicode and numbers of every shape, an admins' event (no
// user), and an event too large for a NOTIFY, which travels by id.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { MAX_MESSAGE_BYTES } from '../../../src/modules/streams/adapters/event-bus.ts';
import { createEventsRepository, type Published } from '../../../src/modules/streams/events.repository.ts';
import { buildTestApp, signIn, type TestApp } from '../../helpers/test-app.ts';

const ORIGIN = randomUUID();
/** Past a NOTIFY's size: the message names the event by id. */
const LARGE = {
  exchange: 'binance',
  changed_fields: Array.from({ length: 400 }, (_, i) => `field_${i}_${'é'.repeat(20)}`),
};

describe('the bus message of a stored account event', () => {
  let t: TestApp;
  let userId: string;
  before(async () => {
    t = await buildTestApp();
    userId = (await signIn(t.app, t.database)).id;
  });
  after(() => t.close());

  const samples = () => {
    const at = new Date();
    return [
      {
        type: 'balance.synced',
        audience: 'user' as const,
        userId,
        data: { error_type: null, nested: { none: null, list: [null, 0, false, ''] }, success: false },
        at,
      },
      {
        type: 'credential.changed',
        audience: 'user' as const,
        userId,
        data: {
          text: 'é ü 中文 🚀 \u2028\u2029 "quoted" back\\slash\n\ttab \u0001 </script>',
          'clé_🔑': 'ünïcödé key',
          numbers: [42, -7, 1.5, 0.1, 1e-7, 1e21, 9007199254740991, -0.000001],
        },
        at,
      },
      {
        type: 'job.finished',
        audience: 'admins' as const,
        userId: null,
        data: { job: 'prune-stream-events', run_id: null, trigger: 'http', status: 'succeeded' },
        at,
      },
      { type: 'credential.changed', audience: 'user' as const, userId, data: LARGE, at },
    ];
  };

  /** Each message is the event it was built from, as published and as read back; the large one by id. */
  async function assertMessagesAreTheEvents(published: readonly Published[], messages: readonly string[]) {
    const repo = createEventsRepository(t.database.db);
    assert.equal(messages.length, published.length);
    for (const [i, { event }] of published.entries()) {
      assert.deepEqual(event, await repo.byId(event.id), 'as published is as read back');
      const message = JSON.parse(messages[i]!) as unknown;
      if (isDeepStrictEqual(event.data, LARGE)) assert.deepEqual(message, { o: ORIGIN, r: event.id });
      else assert.deepEqual(message, { o: ORIGIN, e: event });
    }
  }

  it('answered by the insert for a bus the service publishes to (Redis), is the stored event', async () => {
    const repo = createEventsRepository(t.database.db);
    const published = await repo.insertAll(samples(), { origin: ORIGIN, maxBytes: MAX_MESSAGE_BYTES });
    assert.ok(Buffer.byteLength(JSON.stringify(LARGE)) > MAX_MESSAGE_BYTES);
    await assertMessagesAreTheEvents(
      published,
      published.map((p) => p.message!),
    );
  });

  it("sent by the insert on the database's bus (NOTIFY), is the stored event, in the events' order", async () => {
    const repo = createEventsRepository(t.database.db);
    const channel = `test_events_${randomUUID().replaceAll('-', '')}`;
    const events = samples();
    const received: string[] = [];
    let allReceived!: () => void;
    const arrived = new Promise<void>((resolve) => {
      allReceived = resolve;
    });
    const stop = await t.database.listen(channel, (message) => {
      received.push(message);
      if (received.length === events.length) allReceived();
    });
    try {
      const published = await repo.insertAll(events, {
        origin: ORIGIN,
        maxBytes: MAX_MESSAGE_BYTES,
        notifyChannel: channel,
      });
      assert.ok(
        published.every((p) => p.message === undefined),
        'sent, not answered',
      );
      await arrived;
      await assertMessagesAreTheEvents(published, received);
    } finally {
      await stop();
    }
  });
});
