// sync-accounts: every active credential's balance and new trades, within its share of the venue's
// weight budget, reported per credential; against the Binance fake.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../../src/platform/clock.ts';
import { startBinanceFake, type BinanceFake, type FakeAccount } from '../../fakes/binance.ts';
import { binanceDeposit, binanceTrade } from '../../fakes/binance-shapes.ts';
import { closedPort } from '../../helpers/ports.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { storeVenueCredential } from '../../helpers/venue-credentials.ts';
import { OTHER_VENUES } from '../exchange/venue-fakes.ts';
import { JOB_SECRET, runJob, trigger } from '../jobs/jobs-fixtures.ts';

const START = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 1_000);
const LIMIT = 1200;

interface Result {
  credential_id: string;
  status: string;
  currencies_synced: number | null;
  trades_synced: number;
  transfers_synced: number;
  has_more: boolean;
  error: string | null;
  error_type: string | null;
  retry_after_seconds: number | null;
}

describe('sync-accounts', () => {
  const clock = fixedClock(START);
  let fake: BinanceFake;
  let t: TestApp;
  const users: { user: TestUser; account: FakeAccount; credentialId: string }[] = [];

  before(async () => {
    fake = await startBinanceFake({ weightLimit: LIMIT, weightClock: () => clock.now().getTime() });
    const closed = `http://127.0.0.1:${await closedPort()}`;
    t = await buildTestApp({
      clock,
      env: {
        SCHEDULED_JOB_SECRET: JOB_SECRET,
        BINANCE_API_URL: fake.url,
        BINANCEUS_API_URL: closed,
        EXCHANGE_API_URLS: JSON.stringify(Object.fromEntries(OTHER_VENUES.map((venue) => [venue, closed]))),
        EXCHANGE_RATE_LIMIT: 'false',
        // 25 % of the 960 the service allows itself: 240 weight a minute for the job.
        SYNC_ACCOUNTS_BUDGET_PERCENT: '25',
        // No trigger window: the runs in a row below are minutes apart by the test's clock only.
        JOB_TRIGGER_WINDOW_SECONDS: '0',
      },
    });
    for (let i = 0; i < 4; i++) {
      const user = await signIn(t.app, t.database);
      const account = fake.addAccount({
        apiKey: `jobKey${process.pid}x${i}AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghijkl`,
        secret: `jobSecret${process.pid}x${i}ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210zyxwvu`,
        balances: [{ asset: 'ETH', free: '2', locked: '0' }],
        trades: {
          ETHUSDT: [1, 2].map((n) =>
            binanceTrade({
              symbol: 'ETHUSDT',
              id: i * 100 + n,
              price: '3000',
              qty: '0.1',
              isBuyer: true,
              time: START.getTime() - n * 3_600_000,
            }),
          ),
        },
        deposits: [binanceDeposit({ id: `dep${i}`, coin: 'ETH', amount: '2', time: START.getTime() - 3 * 3_600_000 })],
        // The last key may not read: the venue refuses it.
        ...(i === 3 ? { canRead: false } : {}),
      });
      const credential = await storeVenueCredential(t.app, user, 'binance', account);
      users.push({ user, account, credentialId: credential.id });
    }
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  it(
    'syncs what its share of the budget allows, defers the rest with Retry-After, and ' +
      "leaves room for users' own calls",
    async () => {
      const { result, units } = await runJob(t.app, 'sync-accounts');
      assert.equal(result.credentials, 4);
      assert.equal(result.budget_share, 0.25);
      const results = result.results as Result[];
      assert.deepEqual(
        results.map((r) => r.credential_id),
        users.map((u) => u.credentialId).sort(),
        'in id order',
      );
      const synced = results.filter((r) => r.status === 'synced');
      const deferred = results.filter((r) => r.status === 'deferred');
      assert.ok(synced.length >= 1 && deferred.length >= 1, JSON.stringify(results));
      assert.equal(result.synced + result.deferred + result.failed, 4);
      assert.deepEqual(units, { total: 4, succeeded: result.synced, failed: result.failed });
      for (const r of synced)
        assert.deepEqual(
          [r.currencies_synced, r.trades_synced, r.transfers_synced, r.has_more, r.error],
          [1, 2, 1, false, null],
        );
      assert.equal(result.transfers_synced, synced.length, 'each synced credential stored its deposit');
      for (const r of deferred) {
        assert.equal(r.error_type, 'rate_limit');
        assert.ok(r.retry_after_seconds! >= 1);
        assert.match(r.error!, /Binance request weight budget for this minute is used up \(\d+ of 240\)/);
      }
      assert.deepEqual(fake.rateLimitAnswers, { 429: 0, 418: 0 });

      // A user's own sync is admitted to the whole budget, beyond the job's share.
      const own = await t.app.inject({
        method: 'POST',
        url: '/api/exchange/trades/sync?exchange=binance&symbol=ETHUSDT',
        headers: users[3]!.user.headers,
      });
      assert.equal(own.statusCode, 200);
      const first = users.find((u) => u.credentialId === synced[0]!.credential_id)!;
      const stored = (
        await t.app.inject({ method: 'GET', url: '/api/exchange/trades?exchange=binance', headers: first.user.headers })
      ).json();
      assert.equal(stored.total_records, 2);
    },
  );

  it(
    'lets deferred credentials lead the next runs, so ' + 'every one is synced; a refused key is reported failed',
    async () => {
      const seen = new Map<string, Set<string>>();
      for (let run = 0; run < 4; run++) {
        clock.advance(60_000);
        const { result } = await runJob(t.app, 'sync-accounts');
        const results = result.results as Result[];
        // Each run starts with the credential the previous one deferred first.
        for (const r of results) seen.set(r.credential_id, (seen.get(r.credential_id) ?? new Set()).add(r.status));
      }
      for (const { credentialId } of users.slice(0, 3)) assert.ok(seen.get(credentialId)!.has('synced'), credentialId);
      assert.ok(seen.get(users[3]!.credentialId)!.has('failed'));
      for (const { user } of users.slice(0, 3)) {
        const listed = (
          await t.app.inject({ method: 'GET', url: '/api/exchange/trades?exchange=binance', headers: user.headers })
        ).json();
        assert.equal(listed.total_records, 2, "every synced credential's trades are stored, once");
      }
      assert.deepEqual(fake.rateLimitAnswers, { 429: 0, 418: 0 });
    },
  );

  it('needs the job secret', async () => {
    assert.equal((await trigger(t.app, 'sync-accounts', null)).statusCode, 422);
    assert.equal((await trigger(t.app, 'sync-accounts', 'wrong-secret')).statusCode, 401);
  });
});

// A run is judged by its units, the credentials (decision 126): every one failed → failed, some → partial.
describe('sync-accounts outcome', () => {
  const clock = fixedClock(START);
  let fake: BinanceFake;
  let t: TestApp;
  const credentials: string[] = [];
  before(async () => {
    fake = await startBinanceFake();
    const closed = `http://127.0.0.1:${await closedPort()}`;
    t = await buildTestApp({
      clock,
      env: {
        SCHEDULED_JOB_SECRET: JOB_SECRET,
        BINANCE_API_URL: fake.url,
        BINANCEUS_API_URL: closed,
        EXCHANGE_API_URLS: JSON.stringify(Object.fromEntries(OTHER_VENUES.map((venue) => [venue, closed]))),
        EXCHANGE_RATE_LIMIT: 'false',
        JOB_TRIGGER_WINDOW_SECONDS: '0',
      },
    });
    for (let i = 0; i < 3; i++) {
      const user = await signIn(t.app, t.database);
      const account = fake.addAccount({
        apiKey: `outcomeKey${process.pid}x${i}AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghijkl`,
        secret: `outcomeSecret${process.pid}x${i}ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210zyxwvu`,
        balances: [{ asset: 'ETH', free: '1', locked: '0' }],
        trades: {},
      });
      credentials.push((await storeVenueCredential(t.app, user, 'binance', account)).id);
      accounts.push(account);
    }
  });
  const accounts: FakeAccount[] = [];
  after(async () => {
    await t.close();
    await fake.close();
  });

  const lastRun = async () =>
    (await t.app.inject({ method: 'GET', url: '/api/scheduled/health' }))
      .json()
      .jobs.find((j: { name: string }) => j.name === 'sync-accounts').last_run;

  it(
    'is failed when every credential failed, partial when ' + 'some did, succeeded when none did; health says so',
    async () => {
      for (const account of accounts) account.canRead = false;
      const failed = await runJob(t.app, 'sync-accounts');
      assert.equal(failed.status, 'failed', JSON.stringify(failed));
      assert.deepEqual(failed.units, { total: 3, succeeded: 0, failed: 3 });
      assert.equal(failed.error, 'every credential it tried failed (3 of 3)');
      assert.equal(failed.result.failed, 3);
      assert.deepEqual(
        [(await lastRun()).status, (await lastRun()).units],
        ['failed', { total: 3, succeeded: 0, failed: 3 }],
      );

      accounts[0]!.canRead = true;
      clock.advance(60_000);
      const partial = await runJob(t.app, 'sync-accounts');
      assert.equal(partial.status, 'partial', JSON.stringify(partial));
      assert.deepEqual(partial.units, { total: 3, succeeded: 1, failed: 2 });
      assert.equal(partial.error, null);
      assert.equal((await lastRun()).status, 'partial');

      for (const account of accounts) account.canRead = true;
      clock.advance(60_000);
      const succeeded = await runJob(t.app, 'sync-accounts');
      assert.equal(succeeded.status, 'succeeded', JSON.stringify(succeeded));
      assert.deepEqual(succeeded.units, { total: 3, succeeded: 3, failed: 0 });
      assert.equal((await lastRun()).status, 'succeeded');
    },
  );
});
