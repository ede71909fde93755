// What the exchange module offers other modules: re-encryption for the key-rotation job and trading
// figures for the admin user list.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
// Secrets as sealed at rest (and one sealed under a key no longer configured): no operation shows them.
import { exchangeCredentials } from '../../../src/modules/exchange/exchange.tables.ts';
import { keyId } from '../../../src/platform/crypto/secret-box.ts';
import { buildTestApp, signIn, TEST_ENCRYPTION_KEY, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { storeVenueCredential } from '../../helpers/venue-credentials.ts';
import { addAccount, startVenueFakes, type VenueFakes } from './venue-fakes.ts';

describe('credentials.reencryptAll', () => {
  let fakes: VenueFakes;
  before(async () => {
    fakes = await startVenueFakes();
  });
  after(() => fakes.close());

  it('re-seals every credential under the current key, after which the old key is no longer needed', async () => {
    const newKey = randomBytes(32).toString('base64');
    const account = addAccount(fakes.binanceus);
    let user: TestUser;
    const first = await buildTestApp({ env: fakes.env() });
    try {
      user = await signIn(first.app, first.database);
      await storeVenueCredential(first.app, user, 'binanceus', account);
      await storeVenueCredential(first.app, user, 'okx', {
        apiKey: 'okx-key-123456',
        secret: 'okx-secret-123456',
        passphrase: 'okx-pass',
      });
    } finally {
      await first.close();
    }

    const rotating = await buildTestApp({
      keepData: true,
      env: fakes.env({ ENCRYPTION_KEY: newKey, ENCRYPTION_KEYS_OLD: TEST_ENCRYPTION_KEY }),
    });
    try {
      const module = rotating.modules.exchange;
      assert.deepEqual(await module.credentials.reencryptAll(), { scanned: 2, reencrypted: 2, unreadable: 0 });
      assert.deepEqual(await module.credentials.reencryptAll(), { scanned: 2, reencrypted: 0, unreadable: 0 });
      const rows = await rotating.database.db.select().from(exchangeCredentials);
      const currentKid = keyId(Buffer.from(newKey, 'base64'));
      for (const row of rows) {
        for (const sealed of [row.apiKeySealed, row.apiSecretSealed, row.apiPassphraseSealed].filter(Boolean)) {
          assert.equal(sealed!.split(':')[1], currentKid);
        }
      }
    } finally {
      await rotating.close();
    }

    const rotated = await buildTestApp({ keepData: true, env: fakes.env({ ENCRYPTION_KEY: newKey }) });
    try {
      const sync = await rotated.app.inject({
        method: 'POST',
        url: '/api/exchange/balance/sync?exchange=binanceus',
        headers: user!.headers,
      });
      assert.equal(sync.json().success, true, sync.body);
      const okx = (
        await rotated.database.db.select().from(exchangeCredentials).where(eq(exchangeCredentials.exchangeName, 'okx'))
      )[0]!;
      assert.equal(
        rotated.platform.secretBox.open(okx.apiPassphraseSealed!, {
          table: 'exchange_credentials',
          column: 'api_passphrase_sealed',
          row: okx.id,
        }),
        'okx-pass',
      );
    } finally {
      await rotated.close();
    }
  });
  it('skips and counts a credential sealed under a key no longer configured, and re-seals the others', async () => {
    const newKey = randomBytes(32).toString('base64');
    const first = await buildTestApp({ env: fakes.env() });
    const ids: string[] = [];
    try {
      const user = await signIn(first.app, first.database);
      for (const name of ['okx', 'kraken']) {
        const credential = await storeVenueCredential(first.app, user, name, {
          apiKey: `${name}-key-123456`,
          secret: `${name}-secret-123456`,
          passphrase: 'pass-1',
        });
        ids.push(credential.id);
      }
    } finally {
      await first.close();
    }
    const rotating = await buildTestApp({
      keepData: true,
      env: fakes.env({ ENCRYPTION_KEY: newKey, ENCRYPTION_KEYS_OLD: TEST_ENCRYPTION_KEY }),
    });
    try {
      const foreign = `v1:ffffffffffff:${randomBytes(12).toString('base64')}:${randomBytes(16).toString('base64')}:AAAA`;
      await rotating.database.db
        .update(exchangeCredentials)
        .set({ apiSecretSealed: foreign })
        .where(eq(exchangeCredentials.id, ids[0]!));
      const module = rotating.modules.exchange;
      assert.deepEqual(await module.credentials.reencryptAll(), { scanned: 2, reencrypted: 1, unreadable: 1 });
      assert.deepEqual(await module.credentials.reencryptAll(), { scanned: 2, reencrypted: 0, unreadable: 1 });
      const [untouched] = await rotating.database.db
        .select()
        .from(exchangeCredentials)
        .where(eq(exchangeCredentials.id, ids[0]!));
      assert.equal(untouched!.apiSecretSealed, foreign);
      const [resealed] = await rotating.database.db
        .select()
        .from(exchangeCredentials)
        .where(eq(exchangeCredentials.id, ids[1]!));
      assert.equal(rotating.platform.secretBox.isStale(resealed!.apiSecretSealed), false);
      assert.equal(
        rotating.platform.secretBox.open(resealed!.apiPassphraseSealed!, {
          table: 'exchange_credentials',
          column: 'api_passphrase_sealed',
          row: ids[1]!,
        }),
        'pass-1',
      );
    } finally {
      await rotating.close();
    }
  });
});

describe('tradingSummary.forUsers', () => {
  let fakes: VenueFakes;
  let t: TestApp;
  before(async () => {
    fakes = await startVenueFakes();
    t = await buildTestApp({ env: fakes.env() });
  });
  after(async () => {
    await t.close();
    await fakes.close();
  });

  it(
    'counts stored trades and values the latest snapshot in USD: stablecoins at 1, ' +
      'others at a recently seen price',
    async () => {
      const trader = await signIn(t.app, t.database);
      const idle = await signIn(t.app, t.database);
      const account = addAccount(fakes.binanceus);
      await storeVenueCredential(t.app, trader, 'binanceus', account);
      const post = (url: string) => t.app.inject({ method: 'POST', url, headers: trader.headers });
      assert.equal((await post('/api/exchange/balance/sync?exchange=binanceus')).json().success, true);
      assert.equal((await post('/api/exchange/trades/sync?exchange=binanceus&symbol=BTCUSDT')).json().trades_synced, 2);

      const module = t.modules.exchange;
      const unknown = randomUUID();
      // An id that cannot be stored (not a UUID, or one that would break the array) matches no one.
      const before_ = await module.tradingSummary.forUsers([
        trader.id,
        idle.id,
        unknown,
        'not-a-uuid',
        `${trader.id},x`,
      ]);
      assert.deepEqual(before_.get(trader.id), { totalTrades: 2, accountBalance: 1000.1 });
      assert.deepEqual(before_.get(idle.id), { totalTrades: 0, accountBalance: 0 });
      assert.deepEqual(before_.get(unknown), { totalTrades: 0, accountBalance: 0 });
      assert.deepEqual(before_.get('not-a-uuid'), { totalTrades: 0, accountBalance: 0 });
      assert.deepEqual(before_.get(`${trader.id},x`), { totalTrades: 0, accountBalance: 0 });

      // Once the platform has seen BTC's USD price (any ticker, quotes or route call), BTC counts too.
      const ticker = await t.app.inject({
        method: 'GET',
        url: '/api/exchange/ticker?exchange=binanceus&symbol=BTCUSDT',
        headers: trader.headers,
      });
      assert.equal(ticker.json().last, 64900);
      const after_ = await module.tradingSummary.forUsers([trader.id]);
      // 1000.1 USDT + 0.22345678 BTC × 64900 = 15502.445022
      assert.deepEqual(after_.get(trader.id), { totalTrades: 2, accountBalance: 15502.45 });
      assert.equal((await module.tradingSummary.forUsers([])).size, 0);

      // The admin user list shows the same figures (app.ts wires the module into admin).
      const admin = await signIn(t.app, t.database, { role: 'admin' });
      const list = await t.app.inject({
        method: 'GET',
        url: `/api/admin/users?search=${encodeURIComponent(trader.email)}`,
        headers: admin.headers,
      });
      assert.equal(list.statusCode, 200, list.body);
      const row = list.json().users.find((u: { id: string }) => u.id === trader.id);
      assert.equal(row.totalTrades, 2);
      assert.equal(row.accountBalance, 15502.45);
    },
  );
});
