// The one list of modules: buildApp takes the modules among createModules' values, in its order.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { modulesOf } from '../../src/platform/module.ts';

describe('the list of modules', () => {
  it('holds every named module in the order it was given, and nothing else', () => {
    const ready = async () => {};
    const registry = { close: async () => {} };
    const list = modulesOf({
      notifications: { name: 'notifications' },
      sse: registry,
      auth: { name: 'auth', hooks: { ready } },
      jobs: { name: 'jobs' },
    });
    assert.deepEqual(
      list.map((module) => module.name),
      ['notifications', 'auth', 'jobs'],
    );
    assert.equal(list[1]!.hooks?.ready, ready);
  });
});
