import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { exchangeBalances } from '../../../src/modules/exchange/exchange.tables.ts';
import type { FakeAccount } from '../../fakes/binance.ts';
import { shiftedClock } from '../../helpers/shifted-clock.ts';
import { assertLoggedWithoutSecrets } from '../../helpers/log-checks.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { storeVenueCredential } from '../../helpers/venue-credentials.ts';
import { addAccount, startVenueFakes, type VenueFakes } from './venue-fakes.ts';

describe('exchange balances', () => {
  let fakes: VenueFakes;
  let t: TestApp;
  let user: TestUser;
  let account: FakeAccount;
  let credentialId: string;
  const clock = shiftedClock();

  before(async () => {
    fakes = await startVenueFakes();
    t = await buildTestApp({ env: fakes.env(), clock });
    user = await signIn(t.app, t.database);
    account = addAccount(fakes.binanceus);
    credentialId = (await storeVenueCredential(t.app, user, 'binanceus', account)).id;
  });
  after(async () => {
    await t.close();
    await fakes.close();
  });

  /** As `who` (the test user by default), or without a token when `who` is null. */
  const call = (method: 'GET' | 'POST', url: string, who: TestUser | null = user) =>
    t.app.inject({ method, url, headers: who?.headers ?? {} });
  /** A stored credential as its owner reads it. */
  const credentialOf = async (id: string, owner: TestUser = user) =>
    (await call('GET', `/api/exchange/credentials/${id}`, owner)).json();

  describe('POST /api/exchange/balance/sync', () => {
    it('stores a snapshot of the non-zero holdings as exact numerics and answers the sync result', async () => {
      const response = await call('POST', '/api/exchange/balance/sync?exchange=binanceus');
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.equal(body.success, true);
      assert.equal(body.user_id, user.id);
      assert.equal(body.exchange, 'binanceus');
      assert.equal(body.currencies_synced, 3);
      assert.deepEqual(body.balances.BTC, { free: 0.12345678, locked: 0.1, total: 0.22345678 });
      assert.equal(body.balances.XRP, undefined);
      assert.equal(body.error, null);
      assert.equal(body.error_type, null);
      // The API answers numbers; that the snapshot is kept as an exact numeric shows only at rest.
      const rows = await t.database.db.select().from(exchangeBalances).where(eq(exchangeBalances.userId, user.id));
      const btc = rows.find((r) => r.currency === 'BTC')!;
      assert.equal(btc.total, '0.223456780000000000');
      const credential = await credentialOf(credentialId);
      assert.equal(credential.validation_status, 'valid');
      assert.match(credential.last_used, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const admin = await signIn(t.app, t.database, { role: 'admin' });
      const activity = (await call('GET', `/api/admin/users/${user.id}/activity?limit=100`, admin)).json() as {
        action: string;
        details: { success?: boolean };
      }[];
      assert.equal(activity.find((a) => a.action === 'exchange.balance.sync')!.details.success, true);
    });

    it('answers 404 when the user has no credential for the venue', async () => {
      const response = await call('POST', '/api/exchange/balance/sync?exchange=binance');
      assert.equal(response.statusCode, 404);
      assert.match(response.json().detail, /No active binance credential/);
    });

    it('answers 400 for a credential of another venue', async () => {
      const response = await call('POST', `/api/exchange/balance/sync?exchange=binance&credential_id=${credentialId}`);
      assert.equal(response.statusCode, 400);
      assert.match(response.json().detail, /is for binanceus, not binance/);
    });

    it(
      'answers success false with error_type auth when the venue refuses the key, ' +
        'and marks the credential invalid',
      async () => {
        const other = await signIn(t.app, t.database);
        const stranger = { ...addAccount(fakes.binanceus), secret: 'not-the-right-secret' } as FakeAccount;
        const id = (await storeVenueCredential(t.app, other, 'binanceus', stranger)).id;
        const body = (await call('POST', '/api/exchange/balance/sync?exchange=binanceus', other)).json();
        assert.equal(body.success, false);
        assert.equal(body.error_type, 'auth');
        assert.match(body.error, /Signature for this request is not valid/);
        assert.equal(body.currencies_synced, 0);
        assert.equal((await credentialOf(id, other)).validation_status, 'invalid');
      },
    );

    it('answers error_type network when the venue is down, and exchange on a venue error', async () => {
      fakes.binanceus.fail(503, 'Service Unavailable', { pathPrefix: '/api/v3/account' });
      const down = (await call('POST', '/api/exchange/balance/sync?exchange=binanceus')).json();
      assert.equal(down.success, false);
      assert.equal(down.error_type, 'network');
      fakes.binanceus.fail(
        400,
        { code: -1100, msg: 'Illegal characters found in a parameter.' },
        { pathPrefix: '/api/v3/account' },
      );
      const refused = (await call('POST', '/api/exchange/balance/sync?exchange=binanceus')).json();
      assert.equal(refused.error_type, 'exchange');
      assert.equal(
        (await credentialOf(credentialId)).validation_status,
        'valid',
        'a venue outage says nothing about the key',
      );
    });

    it('resynchronises the clock and retries once when the venue answers -1021', async () => {
      fakes.binanceus.serverTimeOffsetMs = 30_000;
      try {
        const before_ = fakes.binanceus.countRequests('/api/v3/time');
        const body = (await call('POST', '/api/exchange/balance/sync?exchange=binanceus')).json();
        assert.equal(body.success, true, body.error);
        assert.equal(fakes.binanceus.countRequests('/api/v3/time'), before_ + 1);
        // The measured offset is kept: the next call signs with the venue's time at once.
        const timeCalls = fakes.binanceus.countRequests('/api/v3/time');
        assert.equal((await call('POST', '/api/exchange/balance/sync?exchange=binanceus')).json().success, true);
        assert.equal(fakes.binanceus.countRequests('/api/v3/time'), timeCalls);
      } finally {
        fakes.binanceus.serverTimeOffsetMs = 0;
      }
    });

    it(
      'answers error_type rate_limit on a 429, then 503 with Retry-After without ' +
        'calling the venue until it has passed',
      async () => {
        fakes.binanceus.fail(
          429,
          { code: -1003, msg: 'Too many requests; current limit is 1200 request weight per 1 MINUTE.' },
          { pathPrefix: '/api/v3/account', retryAfter: 1 },
        );
        const limited = (await call('POST', '/api/exchange/balance/sync?exchange=binanceus')).json();
        assert.equal(limited.success, false);
        assert.equal(limited.error_type, 'rate_limit');
        const calls = fakes.binanceus.requests.length;
        const waiting = await call('POST', '/api/exchange/balance/sync?exchange=binanceus');
        assert.equal(waiting.statusCode, 503);
        assert.equal(waiting.headers['retry-after'], '1');
        assert.deepEqual(waiting.json(), {
          detail: 'Binance.US is not being called for 1 s after HTTP 429 (rate limit)',
        });
        assert.equal(fakes.binanceus.requests.length, calls, 'no request of any kind during the back-off');
        clock.advance(1_001);
        assert.equal((await call('POST', '/api/exchange/balance/sync?exchange=binanceus')).json().success, true);
      },
    );

    it('validates its query and needs a bearer token', async () => {
      const invalid = await call('POST', '/api/exchange/balance/sync?exchange=nasdaq&credential_id=42');
      assert.equal(invalid.statusCode, 422);
      assert.deepEqual(
        (invalid.json().detail as { type: string }[]).map((d) => d.type),
        ['enum', 'uuid_parsing'],
      );
      assert.equal((await call('POST', '/api/exchange/balance/sync')).json().detail[0].type, 'missing');
      assert.equal((await call('POST', '/api/exchange/balance/sync?exchange=binanceus', null)).statusCode, 401);
      assert.equal(
        (await t.app.inject({ method: 'POST', url: '/api/exchange/balance/sync?exchange=binanceus' })).statusCode,
        401,
      );
    });
  });

  describe('GET /api/exchange/balance', () => {
    // The syncs above spent this minute's throttle of the user's balance syncs (decision 200).
    before(() => clock.advance(60_000));

    it('reads the latest snapshot, optionally one currency, without calling the venue', async () => {
      account.balances[0] = { asset: 'BTC', free: '1.00000000', locked: '0.00000000' };
      await call('POST', '/api/exchange/balance/sync?exchange=binanceus');
      const calls = fakes.binanceus.requests.length;
      const response = await call('GET', '/api/exchange/balance?exchange=binanceus');
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.equal(body.exchange, 'binanceus');
      assert.equal(body.currency, null);
      assert.deepEqual(Object.keys(body.balances).sort(), ['BTC', 'ETH', 'USDT']);
      assert.equal(body.balances.BTC.total, 1);
      assert.equal(body.balances.BTC.sync_timestamp, body.last_sync);
      const btc = (await call('GET', '/api/exchange/balance?exchange=binanceus&currency=btc')).json();
      assert.deepEqual(Object.keys(btc.balances), ['BTC']);
      assert.equal(btc.currency, 'BTC');
      const byCredential = (
        await call('GET', `/api/exchange/balance?exchange=binanceus&credential_id=${credentialId}`)
      ).json();
      assert.equal(byCredential.last_sync, body.last_sync);
      assert.equal(fakes.binanceus.requests.length, calls);
    });

    it('is empty with last_sync null before the first sync, and needs a token', async () => {
      const body = (await call('GET', '/api/exchange/balance?exchange=kraken')).json();
      assert.deepEqual(body, { balances: {}, exchange: 'kraken', currency: null, last_sync: null });
      assert.equal((await call('GET', '/api/exchange/balance?exchange=kraken', null)).statusCode, 401);
      assert.equal((await call('GET', '/api/exchange/balance')).statusCode, 422);
    });

    it("answers 404 for another user's or an unknown credential_id, never their snapshot", async () => {
      const other = await signIn(t.app, t.database);
      const foreign = await call(
        'GET',
        `/api/exchange/balance?exchange=binanceus&credential_id=${credentialId}`,
        other,
      );
      assert.equal(foreign.statusCode, 404);
      assert.deepEqual(foreign.json(), { detail: 'Credential not found' });
      const unknown = await call(
        'GET',
        '/api/exchange/balance?exchange=binanceus&credential_id=00000000-0000-4000-8000-000000000000',
      );
      assert.equal(unknown.statusCode, 404);
      assert.deepEqual(unknown.json(), { detail: 'Credential not found' });
    });

    it('answers 400 for a credential of another venue', async () => {
      const response = await call('GET', `/api/exchange/balance?exchange=binance&credential_id=${credentialId}`);
      assert.equal(response.statusCode, 400);
      assert.match(response.json().detail, /is for binanceus, not binance/);
    });
  });

  describe('GET /api/exchange/balance/history', () => {
    it("lists one currency's snapshots newest first, between dates, bounded by limit", async () => {
      const all = (await call('GET', '/api/exchange/balance/history?exchange=binanceus&currency=BTC')).json();
      assert.ok(all.total_records >= 3);
      assert.equal(all.currency, 'BTC');
      assert.equal(all.history[0].total, 1);
      assert.equal(all.history[0].sync_status, 'synced');
      const stamps = all.history.map((h: { sync_timestamp: string }) => h.sync_timestamp);
      assert.deepEqual([...stamps].sort().reverse(), stamps);

      const limited = (
        await call('GET', '/api/exchange/balance/history?exchange=binanceus&currency=btc&limit=1')
      ).json();
      assert.equal(limited.history.length, 1);
      assert.equal(limited.total_records, all.total_records);

      const newest = stamps[0];
      const window = (
        await call(
          'GET',
          `/api/exchange/balance/history?exchange=binanceus&currency=BTC&start_date=${encodeURIComponent(newest)}`,
        )
      ).json();
      assert.equal(window.history.length, 1);
      const none = (
        await call('GET', '/api/exchange/balance/history?exchange=binanceus&currency=BTC&end_date=2000-01-01T00:00:00Z')
      ).json();
      assert.equal(none.total_records, 0);
    });

    it('validates currency, limit and dates, and needs a token', async () => {
      const invalid = await call(
        'GET',
        '/api/exchange/balance/history?exchange=binanceus&limit=0&start_date=yesterday',
      );
      assert.equal(invalid.statusCode, 422);
      const types = Object.fromEntries(
        (invalid.json().detail as { loc: string[]; type: string }[]).map((d) => [d.loc[1], d.type]),
      );
      assert.deepEqual(types, {
        currency: 'missing',
        start_date: 'datetime_from_date_parsing',
        limit: 'greater_than_equal',
      });
      assert.equal(
        (await call('GET', '/api/exchange/balance/history?exchange=binanceus&currency=BTC&limit=1001')).json().detail[0]
          .type,
        'less_than_equal',
      );
      assert.equal(
        (await call('GET', '/api/exchange/balance/history?exchange=binanceus&currency=BTC', null)).statusCode,
        401,
      );
    });
  });

  it('never logs the keys', () => {
    const accounts = [...fakes.binanceus.accounts.values()];
    // The keys were in play: each reached the venue (the key in X-MBX-APIKEY).
    for (const a of accounts)
      assert.ok(
        fakes.binanceus.requests.some((r) => r.headers['x-mbx-apikey'] === a.apiKey),
        `${a.apiKey} reached the venue`,
      );
    assertLoggedWithoutSecrets(
      t,
      [
        { method: 'POST', path: '/api/exchange/credentials' },
        { method: 'POST', path: '/api/exchange/balance/sync' },
      ],
      accounts.flatMap((a) => [a.apiKey, a.secret]),
    );
  });
});
