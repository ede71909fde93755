// A notice's preferences read by the account events' insert (decision 870): the value the insert reads beside
// an event is the user's row as the preferences' own read answers it (the channels' JSON with its sealed values
// and odd characters, the events' array), and nothing (the defaults) for a user who stored none.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  createPreferencesRepository,
  PREFERENCES_OF_STORED_EVENT,
  storedEventPreferences,
} from '../../../src/modules/notifications/preferences.repository.ts';
import type { StoredChannel } from '../../../src/modules/notifications/preferences.domain.ts';
import { buildTestApp, signIn, type TestApp } from '../../helpers/test-app.ts';

describe('the preferences read by the events’ insert', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  it('reads what the preferences’ own read answers, and nothing for a user on the defaults', async () => {
    const chose = await signIn(t.app, t.database);
    const defaults = await signIn(t.app, t.database);
    const repo = createPreferencesRepository(t.database.db);
    const channels = [
      { id: 'email', type: 'email' },
      { id: 'c1', type: 'telegram', sealed: 'v1:"quoted"\\back\u00e9\u{1F600}' },
      { id: 'c2', type: 'webhook', format: 'discord', sealed: 'v1:x', shown: 'https://hooks.example/{a}' },
    ] as StoredChannel[];
    await repo.save(chose.id, { channels, events: ['order.filled', 'trading.halted'] }, new Date());
    const read = new Map<string, unknown>();
    const unobserve = t.modules.streams.observe((event, companion) => {
      if (event.userId) read.set(event.userId, companion);
    }, PREFERENCES_OF_STORED_EVENT);
    try {
      const halted = { cause: 'user', reason: 'preferences', until: null };
      await Promise.all([
        t.modules.streams.publisher.user(chose.id, 'trading.halted', halted),
        t.modules.streams.publisher.user(defaults.id, 'trading.halted', halted),
      ]);
    } finally {
      unobserve();
    }
    assert.deepEqual(storedEventPreferences(read.get(chose.id)), await repo.of(chose.id));
    assert.equal(storedEventPreferences(read.get(defaults.id)), undefined);
    assert.equal(await repo.of(defaults.id), undefined);
  });
});
