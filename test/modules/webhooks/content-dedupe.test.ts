// Deliveries a sender names by nothing but their body (Supabase database webhooks): the same body
// is a retry within RETRY_WINDOW_MS, and a new change after it (decision 099).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { RETRY_WINDOW_MS } from '../../../src/modules/webhooks/providers/provider.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { buildTestApp, resetDatabase, type TestApp } from '../../helpers/test-app.ts';
import { bearerDelivery } from '../../fakes/webhook-senders.ts';
import { deliveryRows, NOW, outboxRows, SECRETS, send, webhookApp } from './webhooks-kit.ts';

const URL = '/api/webhooks/platforms/database';
const MINUTE = 60_000;

/** A row update of a user table, from `from` to `to`, as Supabase sends it. */
const update = (from: string, to: string) =>
  bearerDelivery(SECRETS.DATABASE_WEBHOOK_SECRET, {
    type: 'UPDATE',
    table: 'profiles',
    schema: 'public',
    record: { id: 'p1', plan: to },
    old_record: { id: 'p1', plan: from },
  });
const signup = () =>
  bearerDelivery(SECRETS.DATABASE_WEBHOOK_SECRET, {
    type: 'INSERT',
    table: 'profiles',
    schema: 'public',
    record: { id: 'p2', email: 'again@example.com' },
    old_record: null,
  });

describe('deliveries identified by their body', () => {
  let t: TestApp;
  let clock: Awaited<ReturnType<typeof webhookApp>>['clock'];
  before(async () => {
    ({ t, clock } = await webhookApp());
  });
  beforeEach(async () => {
    await resetDatabase(t.database);
    clock.set(NOW);
  });
  after(async () => {
    await t.close();
  });
  const status = async (delivery: ReturnType<typeof update>) =>
    (await send(t, URL, delivery)).json<{ status: string }>().status;

  it('the window is a matter of minutes', () => {
    assert.equal(RETRY_WINDOW_MS, 10 * MINUTE);
  });

  it('A→B, B→A, then A→B again once the window has passed: each is processed', async () => {
    assert.equal(await status(update('A', 'B')), 'processed');
    clock.advance(MINUTE);
    assert.equal(await status(update('B', 'A')), 'processed');
    clock.advance(RETRY_WINDOW_MS);
    assert.equal(await status(update('A', 'B')), 'processed');
    assert.deepEqual(
      (await deliveryRows(t, 'database')).map((row) => row.status),
      ['processed', 'processed', 'processed'],
    );
  });

  it('the same body again within the window is a retry: acknowledged as duplicate, stored once', async () => {
    assert.equal(await status(update('A', 'B')), 'processed');
    clock.advance(RETRY_WINDOW_MS - 1000);
    assert.equal(await status(update('A', 'B')), 'duplicate');
    assert.equal((await deliveryRows(t, 'database')).length, 1);
  });

  it('a retry that crosses the start of a window is still a duplicate', async () => {
    const windowStart = Math.ceil(NOW.getTime() / RETRY_WINDOW_MS) * RETRY_WINDOW_MS;
    clock.set(new Date(windowStart - 2000));
    const first = await send(t, URL, update('A', 'B'));
    clock.set(new Date(windowStart + 3000));
    const retry = await send(t, URL, update('A', 'B'));
    assert.equal(retry.json().status, 'duplicate');
    assert.equal(retry.json().delivery_id, first.json().delivery_id);
  });

  it('a copy stamped earlier than one already stored (instances whose clocks differ) is a duplicate too', async () => {
    const windowStart = Math.ceil(NOW.getTime() / RETRY_WINDOW_MS) * RETRY_WINDOW_MS;
    clock.set(new Date(windowStart + 1000));
    const first = await send(t, URL, update('A', 'B'));
    clock.set(new Date(windowStart - 1000));
    const skewed = await send(t, URL, update('A', 'B'));
    assert.deepEqual([skewed.json().status, skewed.json().delivery_id], ['duplicate', first.json().delivery_id]);
  });

  it('two copies arriving at once on two instances, either side of a window start, are processed once', async () => {
    const windowStart = Math.ceil(NOW.getTime() / RETRY_WINDOW_MS) * RETRY_WINDOW_MS;
    clock.set(new Date(windowStart - 1));
    const other = await buildTestApp({ env: SECRETS, clock: fixedClock(new Date(windowStart + 1)), keepData: true });
    try {
      for (let round = 0; round < 5; round++) {
        const body = update(`A${round}`, `B${round}`);
        const answers = await Promise.all([send(t, URL, body), send(other, URL, body)]);
        assert.deepEqual(answers.map((a) => a.json().status).sort(), ['duplicate', 'processed'], `round ${round}`);
      }
    } finally {
      await other.close();
    }
  });

  it('a sign-up repeated after the window posts its message again; within it, once', async () => {
    const first = await send(t, URL, signup());
    clock.advance(2 * MINUTE);
    await send(t, URL, signup());
    clock.advance(RETRY_WINDOW_MS);
    const later = await send(t, URL, signup());
    assert.notEqual(later.json().delivery_id, first.json().delivery_id);
    assert.deepEqual(
      (await outboxRows(t, 'database')).map((row) => row.payload.title),
      ['New user signed up', 'New user signed up'],
    );
  });
});
