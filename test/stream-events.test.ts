// The one list of account-stream events, gathered from the modules' declarations: no type or title
// twice, and a publisher typed by it refuses a wrong type, a wrong audience or wrong data.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from 'typebox';
import type { EventPublisher } from '../src/modules/streams/index.ts';
import { checkStreamEvents, defineStreamEvent } from '../src/platform/stream-events.ts';
import { STREAM_EVENT_TYPES, STREAM_EVENTS, type StreamEvents } from '../src/declarations.ts';

describe('the list of stream events', () => {
  it("holds each publisher's declarations once, in the document's order", () => {
    assert.deepEqual(STREAM_EVENT_TYPES, [
      'balance.synced',
      'trades.synced',
      'transfers.synced',
      'portfolio.updated',
      'credential.validated',
      'credential.changed',
      'job.finished',
      'signal.refused',
      'trading.halted',
      'webhook.received',
      'order.updated',
    ]);
    assert.doesNotThrow(() => checkStreamEvents(STREAM_EVENTS));
  });

  it('refuses a type or a title declared twice', () => {
    const event = (type: string, title: string) =>
      defineStreamEvent({ type, audience: 'user', title, description: '', data: Type.Object({}) });
    assert.throws(() => checkStreamEvents([event('a.done', 'ADoneData'), event('a.done', 'OtherData')]), /type/);
    assert.throws(() => checkStreamEvents([event('a.done', 'ADoneData'), event('b.done', 'ADoneData')]), /title/);
  });

  it('types publishing by the schema of the event', async () => {
    const sent: unknown[] = [];
    const publisher: EventPublisher<StreamEvents> = {
      user: async (userId, type, data) => void sent.push([userId, type, data]),
      userEach: async (userId, type, data) => void sent.push([userId, type, data]),
      admins: async (type, data) => void sent.push([type, data]),
    };
    const portfolio = { exchange: 'binance', cause: 'trades', stored: 2 } as const;
    await publisher.user<'portfolio.updated'>('u1', 'portfolio.updated', portfolio);
    // @ts-expect-error a field the schema does not have
    await publisher.user('u1', 'portfolio.updated', { ...portfolio, extra: 1 });
    // @ts-expect-error a value outside the schema's enum
    await publisher.user('u1', 'portfolio.updated', { ...portfolio, cause: 'balances' });
    // @ts-expect-error a type nobody declared
    await publisher.user('u1', 'portfolio.refreshed', portfolio);
    // @ts-expect-error an admins event sent to one user
    await publisher.user('u1', 'webhook.received', { provider: 'edge', event: 'x', delivery_id: 'd', status: 's' });
    await publisher.admins('webhook.received', { provider: 'edge', event: 'x', delivery_id: 'd', status: 's' });
    assert.equal(sent.length, 6);
  });
});
