// Live orders keep one ccxt instance per credential between orders (decision 261): a changed secret is
// used from the next order on, and a deleted credential trades no more.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startOrdersApp, type OrdersApp } from './orders-fixtures.ts';

describe('live orders and credential changes', () => {
  let o: OrdersApp;
  before(async () => {
    o = await startOrdersApp();
  });
  after(async () => {
    await o?.close();
  });

  it('signs with the new secret as soon as it is changed, and with none once the credential is deleted', async () => {
    const trader = await o.trader();
    for (let i = 0; i < 3; i++) {
      const placed = await o.place(trader, { side: i % 2 === 0 ? 'buy' : 'sell' });
      assert.equal(placed.statusCode, 201, placed.body);
      assert.equal(placed.json().status, 'filled', placed.body);
    }

    const url = `/api/exchange/credentials/${trader.credentialId}`;
    const wrong = await o.inject('PUT', url, trader.headers, { api_secret: 'not-the-secret-at-the-venue' });
    assert.equal(wrong.statusCode, 200, wrong.body);
    const refused = await o.place(trader, {});
    assert.equal(refused.statusCode, 201, refused.body);
    assert.equal(refused.json().status, 'rejected', 'the venue refuses the signature of the changed secret');

    const right = await o.inject('PUT', url, trader.headers, { api_secret: trader.account.secret });
    assert.equal(right.statusCode, 200, right.body);
    const again = await o.place(trader, {});
    assert.equal(again.json().status, 'filled', again.body);

    assert.equal((await o.inject('DELETE', url, trader.headers)).statusCode, 200);
    const gone = await o.place(trader, {});
    assert.notEqual(gone.statusCode, 201, gone.body);
    assert.equal(o.book.of(trader.account.apiKey).length, 4);
  });
});
