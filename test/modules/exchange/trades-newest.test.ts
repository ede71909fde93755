import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTradesRepository, type NewTrade } from '../../../src/modules/exchange/trades.repository.ts';
import { recordStatements } from '../../helpers/statements.ts';
import type { TestApp, TestUser } from '../../helpers/test-app.ts';
import { day, startTradesApp, type TradesApp } from './trades-fixtures.ts';
import type { VenueFakes } from './venue-fakes.ts';

// Where a market's trade sync continues (decisions 111, 891): the newest stored trade's numeric id, its time
// and the ids stored at that time, read in one statement (decision 941).
describe("the newest stored trade of a credential's market", () => {
  let fakes: VenueFakes;
  let t: TestApp;
  let user: TestUser;
  let call: TradesApp['call'];
  let credentialId: string;
  let repo: ReturnType<typeof createTradesRepository>;

  const trade = (id: string, at: number, symbol = 'SOL/USDT'): NewTrade => ({
    userId: user.id,
    exchange: 'binance',
    credentialId,
    exchangeTradeId: id,
    symbol,
    side: 'buy',
    price: '100',
    amount: '1',
    total: '100',
    fee: '0',
    feeCurrency: 'USDT',
    tradeTimestamp: new Date(at),
  });

  before(async () => {
    ({ fakes, t, user, call } = await startTradesApp());
    const listed = await call('GET', '/api/exchange/credentials?exchange_name=binance');
    assert.equal(listed.statusCode, 200, listed.body);
    const body = listed.json();
    credentialId = (Array.isArray(body) ? body : body.credentials)[0].id;
    repo = createTradesRepository(t.database.db);
  });
  after(async () => {
    await t.close();
    await fakes.close();
  });

  it('answers nothing for a market with no stored trade', async () => {
    assert.deepEqual(await repo.newest(credentialId, 'SOL/USDT'), { maxId: null, newestAt: null, idsAtNewest: [] });
  });

  it('answers the highest numeric id, the newest time and every id stored within its millisecond, in one statement', async () => {
    const at = day(20);
    await repo.insertNew([
      trade('100', at - 60_000),
      trade('note-7', at - 30_000),
      trade('7', at),
      trade('12', at),
      trade('9', at),
      trade('5000', at - 1, 'AVAX/USDT'),
    ]);
    // The database keeps microseconds: a trade 0.5 ms into the newest millisecond is the newest, and a
    // Date of it (milliseconds) is the same instant as the others'.
    await t.database.db.execute(
      sql`UPDATE exchange_trades SET trade_timestamp = trade_timestamp + interval '500 microseconds'
          WHERE credential_id = ${credentialId} AND exchange_trade_id = '9'`,
    );
    const statements = recordStatements(t.database);
    const newest = await repo.newest(credentialId, 'SOL/USDT');
    statements.stop();
    assert.equal(newest.maxId, '100');
    assert.equal(newest.newestAt?.toISOString(), new Date(at).toISOString());
    assert.deepEqual([...newest.idsAtNewest].sort(), ['12', '7', '9']);
    assert.equal(statements.texts.length, 1, statements.texts.join('\n---\n'));
  });

  it('continues a sync past what it stored, every trade stored once', async () => {
    const first = (await call('POST', '/api/exchange/trades/sync?exchange=binance&symbol=BTCUSDT')).json();
    assert.equal(first.trades_synced, 2);
    const again = (await call('POST', '/api/exchange/trades/sync?exchange=binance&symbol=BTCUSDT')).json();
    assert.deepEqual([again.trades_synced, again.trades_duplicate], [0, 0]);
    const newest = await repo.newest(credentialId, 'BTC/USDT');
    assert.equal(newest.maxId, '102');
    assert.deepEqual(newest.idsAtNewest, ['102']);
  });
});
