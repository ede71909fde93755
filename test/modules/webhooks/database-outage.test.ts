// A delivery is acknowledged only once it is stored (decision 060): with the database cut for real (a
// TCP proxy in front of PostgreSQL), before the delivery or in the middle of its transaction, the
// sender is told to retry, and its retry is processed once the database is back: nothing is lost,
// nothing happens twice.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { fixedClock } from '../../../src/platform/clock.ts';
import type { TcpProxy } from '../../fakes/tcp-proxy.ts';
import { githubDelivery } from '../../fakes/webhook-senders.ts';
import { cuttableTestDatabase, type CuttableDatabase } from '../../helpers/database-cut.ts';
import { withoutPostgres } from '../../helpers/services.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';
import { NOW, outboxRows, SECRETS, send } from './webhooks-kit.ts';

const NO_POSTGRES = withoutPostgres(
  'the database is cut through a TCP proxy in front of a real server (DATABASE_URL=postgres://postgres@127.0.0.1:5432/test)',
);
const CODEHOST = '/api/webhooks/platforms/codehost';
const SECRET = SECRETS.CODEHOST_WEBHOOK_SECRET!;

const push = (id: string) =>
  githubDelivery(
    SECRET,
    'push',
    {
      ref: 'refs/heads/main',
      repository: { full_name: `acme/${id}` },
      pusher: { name: 'ada' },
      commits: [{ id: 'abcdef1234567', message: `change ${id}`, author: { username: 'ada' } }],
    },
    { deliveryId: id },
  );

describe('a delivery while the database is away', { skip: NO_POSTGRES }, () => {
  let db: CuttableDatabase;
  let proxy: TcpProxy;
  let t: TestApp;

  before(async () => {
    db = await cuttableTestDatabase();
    proxy = db.proxy;
    t = await buildTestApp({ env: SECRETS, clock: fixedClock(NOW), database: db.database });
  });
  afterEach(() => db.restore());
  after(async () => {
    await t?.close();
    await db?.close();
  });

  const cut = () => db.cut();

  const chats = async (id: string) =>
    (await outboxRows(t, 'codehost')).filter((row) => row.dedupe_key?.startsWith(`codehost:${id}`));

  it('is not acknowledged while the database is cut, and its retry is processed once it is back', async () => {
    await cut();
    const refused = await send(t, CODEHOST, push('gh-outage-1'));
    assert.equal(refused.statusCode, 503, refused.body);
    assert.ok(refused.headers['retry-after']);

    await proxy.mode('pass');
    const retried = await send(t, CODEHOST, push('gh-outage-1'));
    assert.equal(retried.statusCode, 200, retried.body);
    assert.equal(retried.json().status, 'processed');
    assert.equal((await chats('gh-outage-1')).length, 1);
  });

  it('is not acknowledged when the database goes away inside its transaction; the retry applies it once', async () => {
    proxy.tap((chunk) => {
      if (!chunk.includes('outbox')) return;
      proxy.tap();
      void cut();
    });
    const refused = await send(t, CODEHOST, push('gh-outage-2'));
    assert.ok(refused.statusCode >= 500, refused.body);

    await proxy.mode('pass');
    const retried = await send(t, CODEHOST, push('gh-outage-2'));
    assert.equal(retried.statusCode, 200, retried.body);
    assert.equal(retried.json().status, 'processed');
    assert.equal((await chats('gh-outage-2')).length, 1);
    const again = await send(t, CODEHOST, push('gh-outage-2'));
    assert.equal(again.json().status, 'duplicate');
    assert.equal((await chats('gh-outage-2')).length, 1);
  });
});
