import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { FakeAccount } from '../../fakes/binance.ts';
import { binanceDeposit, binanceWithdrawal } from '../../fakes/binance-shapes.ts';
import { assertIssue } from '../../helpers/error-assertions.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { storeVenueCredential } from '../../helpers/venue-credentials.ts';
import { addAccount, startVenueFakes, type VenueFakes } from './venue-fakes.ts';

const DAY = 86_400_000;

describe('exchange transfers', () => {
  let fakes: VenueFakes;
  let t: TestApp;
  let user: TestUser;
  let account: FakeAccount;
  const now = Date.now();

  before(async () => {
    fakes = await startVenueFakes();
    t = await buildTestApp({ env: fakes.env() });
    user = await signIn(t.app, t.database);
    account = addAccount(fakes.binance, {
      // Spread over 300 days: four windows of 90 days reach them all.
      deposits: [
        binanceDeposit({ id: 'd1', coin: 'USDT', amount: '1000', time: now - 290 * DAY }),
        binanceDeposit({ id: 'd2', coin: 'BTC', amount: '0.5', time: now - 100 * DAY }),
        binanceDeposit({ id: 'd3', coin: 'ETH', amount: '2', time: now - 2 * 3_600_000, status: 0 }),
      ],
      withdrawals: [
        binanceWithdrawal({ id: 'w1', coin: 'BTC', amount: '0.1', fee: '0.0005', time: now - 10 * DAY, txId: 'abc' }),
      ],
    });
    await storeVenueCredential(t.app, user, 'binance', account);
  });
  after(async () => {
    await t.close();
    await fakes.close();
  });

  const call = (method: 'GET' | 'POST', url: string, who: TestUser | null = user) =>
    t.app.inject({ method, url, headers: who?.headers ?? {} });
  const capitalCalls = () =>
    fakes.binance.requests.filter(
      (r) => r.path.startsWith('/sapi/v1/capital/') && r.path !== '/sapi/v1/capital/config/getall',
    );

  it('reads the history in windows of at most 90 days from the horizon, and stores each record once', async () => {
    const before = capitalCalls().length;
    const response = await call('POST', '/api/exchange/transfers/sync?exchange=binance');
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.success, true, response.body);
    assert.equal(body.transfers_synced, 4);
    assert.equal(body.has_more, false);
    const calls = capitalCalls().slice(before);
    // 365 days back to now: five windows per type (90 × 4 = 360, then 5 days).
    assert.equal(calls.filter((c) => c.path === '/sapi/v1/capital/deposit/hisrec').length, 5);
    assert.equal(calls.filter((c) => c.path === '/sapi/v1/capital/withdraw/history').length, 5);
    for (const c of calls) {
      const span = Number(c.params.get('endTime')) - Number(c.params.get('startTime'));
      assert.ok(span > 0 && span <= 90 * DAY, `window of ${span} ms`);
    }
    const deposits = body.types.find((k: { type: string }) => k.type === 'deposit');
    assert.equal(deposits.windows, 5);
    assert.ok(
      Math.abs(Date.parse(deposits.synced_until) - (Date.now() - DAY)) < 60_000,
      'the cursor stays a day behind now',
    );

    const events = await t.database.rows<{ type: string; data: Record<string, unknown> }>(
      sql`SELECT type, data FROM stream_events
        WHERE user_id = ${user.id} AND type IN ('transfers.synced', 'portfolio.updated')
        ORDER BY id`,
    );
    assert.deepEqual(
      events.map((e) => e.type),
      ['transfers.synced', 'portfolio.updated'],
    );
    assert.deepEqual(events[1]!.data, { exchange: 'binance', cause: 'transfers', stored: 4 });
    const again = (await call('POST', '/api/exchange/transfers/sync?exchange=binance')).json();
    assert.equal(again.transfers_synced, 0, 'nothing new');
    assert.deepEqual(
      again.types.map((k: { windows: number }) => k.windows),
      [1, 1],
      'continues from the cursor: one window each',
    );
    const updates = await t.database.rows(
      sql`SELECT 1 FROM stream_events WHERE user_id = ${user.id} AND type = 'portfolio.updated'`,
    );
    assert.equal(updates.length, 1, 'a sync that stored nothing does not say the portfolio changed');
  });

  it('lists them newest first, filtered by type, with exact amounts and the pending status', async () => {
    const response = await call('GET', '/api/exchange/transfers?exchange=binance');
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.total_records, 4);
    assert.deepEqual(
      body.transfers.map(
        (r: {
          exchange_transfer_id: string;
          type: string;
          currency: string;
          amount: number;
          fee: number;
          status: string;
        }) => [r.exchange_transfer_id, r.type, r.currency, r.amount, r.fee, r.status],
      ),
      [
        ['d3', 'deposit', 'ETH', 2, 0, 'pending'],
        ['w1', 'withdrawal', 'BTC', 0.1, 0.0005, 'ok'],
        ['d2', 'deposit', 'BTC', 0.5, 0, 'ok'],
        ['d1', 'deposit', 'USDT', 1000, 0, 'ok'],
      ],
    );
    const withdrawals = (await call('GET', '/api/exchange/transfers?exchange=binance&type=withdrawal')).json();
    assert.deepEqual(
      withdrawals.transfers.map((r: { txid: string }) => r.txid),
      ['abc'],
    );
  });

  it('updates the status of a record the venue later confirms', async () => {
    (account.deposits![2] as { status: number }).status = 1;
    const synced = (await call('POST', '/api/exchange/transfers/sync?exchange=binance')).json();
    assert.equal(synced.transfers_synced, 0);
    const eth = (await call('GET', '/api/exchange/transfers?exchange=binance&type=deposit')).json().transfers[0];
    assert.deepEqual([eth.exchange_transfer_id, eth.status], ['d3', 'ok']);
  });

  it('skips and reports a record whose amount numeric(38, 18) cannot hold, stores the rest and moves on', async () => {
    const owner = await signIn(t.app, t.database);
    const huge = addAccount(fakes.binance, {
      deposits: [
        binanceDeposit({ id: 'ok-1', coin: 'USDT', amount: '25', time: now - 20 * DAY }),
        // 24 digits before the point: 4 more than numeric(38, 18) holds.
        binanceDeposit({ id: 'huge-1', coin: 'SHIB', amount: '123456789012345678901234', time: now - 10 * DAY }),
      ],
      withdrawals: [],
    });
    await storeVenueCredential(t.app, owner, 'binance', huge);

    const first = await call('POST', '/api/exchange/transfers/sync?exchange=binance', owner);
    assert.equal(first.statusCode, 200, first.body);
    const body = first.json();
    assert.equal(body.success, true, first.body);
    assert.equal(body.transfers_synced, 1);
    const deposits = body.types.find((k: { type: string }) => k.type === 'deposit');
    assert.equal(deposits.skipped.length, 1, first.body);
    assert.equal(deposits.skipped[0].exchange_transfer_id, 'huge-1');
    assert.match(deposits.skipped[0].reason, /beyond numeric\(38, 18\)/);
    assert.ok(Date.parse(deposits.synced_until) > now - 10 * DAY, 'the cursor moved past the record');
    assert.ok(
      t.logLines().some((line) => line.level === 40 && JSON.stringify(line).includes('huge-1')),
      'the skipped record is in the log',
    );

    const listed = (await call('GET', '/api/exchange/transfers?exchange=binance', owner)).json();
    assert.deepEqual(
      listed.transfers.map((row: { exchange_transfer_id: string }) => row.exchange_transfer_id),
      ['ok-1'],
    );
    const again = await call('POST', '/api/exchange/transfers/sync?exchange=binance', owner);
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().success, true, 'the next sync does not stick on it');
  });

  it(
    'answers a venue failure as success false, 401 without ' + 'a token, 422 for a bad venue, 404 without a credential',
    async () => {
      fakes.binance.fail(500, { code: -1000, msg: 'An unknown error occurred.' }, { pathPrefix: '/sapi/v1/capital/' });
      const failed = (await call('POST', '/api/exchange/transfers/sync?exchange=binance')).json();
      assert.equal(failed.success, false);
      assert.equal(typeof failed.error, 'string');
      assert.equal((await call('POST', '/api/exchange/transfers/sync?exchange=binance', null)).statusCode, 401);
      assert.equal((await call('GET', '/api/exchange/transfers?exchange=binance', null)).statusCode, 401);
      assertIssue(await call('GET', '/api/exchange/transfers?exchange=nowhere'), ['query', 'exchange'], 'enum');
      assertIssue(await call('GET', '/api/exchange/transfers?exchange=binance&type=gift'), ['query', 'type'], 'enum');
      const other = await signIn(t.app, t.database);
      assert.equal((await call('POST', '/api/exchange/transfers/sync?exchange=binance', other)).statusCode, 404);
    },
  );
});
