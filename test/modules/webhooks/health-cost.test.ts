// The receivers' health answers anyone (decision 963): each answer reads every provider's figures, so
// repeats within a second are answered from the response micro-cache, at no cost to the database.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../../helpers/test-app.ts';
import { recordStatements } from '../../helpers/statements.ts';
import { webhookApp } from './webhooks-kit.ts';

describe('webhook health answers to anyone', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    ({ t } = await webhookApp());
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  after(() => t.close());

  for (const path of ['/api/webhooks/platforms/health', '/api/webhooks/health']) {
    it(`reads the database at most once for a burst of ${path}`, async () => {
      const once = recordStatements(t.database);
      const first = await fetch(`${base}${path}`);
      once.stop();
      assert.equal(first.status, 200);
      const body = await first.json();
      assert.ok(once.texts.length > 0);
      const burst = recordStatements(t.database);
      try {
        const answers = await Promise.all(Array.from({ length: 10 }, () => fetch(`${base}${path}`)));
        for (const answer of answers) {
          assert.equal(answer.status, 200);
          assert.deepEqual(await answer.json(), body);
        }
        // A second that ended meanwhile may have one answer read again, never each of them.
        assert.ok(burst.texts.length <= once.texts.length, `${burst.texts.length} statements`);
      } finally {
        burst.stop();
      }
    });
  }
});
