// Which credential a live order trades with (decisions 345, 460, 650): the one named, or the user's default on
// the venue (an active one, a validated one before an unvalidated one, the newest first); read by the trading
// gate's statement, its refusals answered before a halt's or a limit's, as the credentials service's own read.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { rowsOf } from '../../../src/platform/db/database.ts';
import { executeText } from '../../../src/platform/db/prepared.ts';
import { credentialJoin, credentialRowOf } from '../../../src/modules/exchange/credential-join.ts';
import { exchangeCredentials } from '../../../src/modules/exchange/exchange.tables.ts';
import { orders } from '../../../src/modules/orders/orders.tables.ts';
import { assertDetail } from '../../helpers/error-assertions.ts';
import { storeVenueCredential } from '../../helpers/venue-credentials.ts';
import { startOrdersApp, type OrdersApp, type Trader } from './orders-fixtures.ts';

describe("a live order's credential", () => {
  let o: OrdersApp;
  before(async () => {
    o = await startOrdersApp();
  });
  after(async () => {
    await o.close();
  });

  /** A second Binance credential of the trader's, on an account of its own at the fake. */
  async function second(trader: Trader) {
    const account = o.binance.addAccount({
      apiKey: `key${randomBytes(12).toString('hex')}`,
      secret: `secret${randomBytes(16).toString('hex')}`,
      balances: [{ asset: 'USDT', free: '100000', locked: '0' }],
      trades: {},
    });
    const stored = await storeVenueCredential(o.t.app, trader, 'binance', account, { credential_name: 'second' });
    return { id: stored.id, account };
  }
  const setStatus = (id: string, status: string) =>
    o.t.database.db
      .update(exchangeCredentials)
      .set({ validationStatus: status as never })
      .where(eq(exchangeCredentials.id, id));

  /** The credential an order placed (201) stored as the one it trades with. */
  async function tradedWith(placed: Awaited<ReturnType<OrdersApp['place']>>): Promise<string | null> {
    assert.equal(placed.statusCode, 201, placed.body);
    const [row] = await o.t.database.db.select().from(orders).where(eq(orders.id, placed.json().id));
    return row!.credentialId;
  }

  it('is the newest validated one by default, a validated one before a pending one, or the one named', async () => {
    const trader = await o.trader();
    const newer = await second(trader);
    await setStatus(trader.credentialId, 'valid');
    await setStatus(newer.id, 'valid');
    assert.equal(await tradedWith(await o.place(trader, { amount: '0.001' })), newer.id);
    assert.equal(o.book.of(newer.account.apiKey).length, 1);
    await setStatus(newer.id, 'pending');
    assert.equal(await tradedWith(await o.place(trader, { amount: '0.001' })), trader.credentialId);
    assert.equal(await tradedWith(await o.place(trader, { amount: '0.001', credential_id: newer.id })), newer.id);
    assert.equal(o.book.of(newer.account.apiKey).length, 2);
    assert.equal(o.book.of(trader.account.apiKey).length, 1);
  });

  it("refuses another user's, an inactive, another venue's or no credential, storing and sending nothing", async () => {
    const trader = await o.trader();
    const other = await o.trader();
    assertDetail(await o.place(trader, { credential_id: other.credentialId }), 404, 'Credential not found');
    assertDetail(await o.place(trader, { credential_id: randomUUID() }), 404, 'Credential not found');
    const extra = await second(trader);
    const off = await o.inject('PUT', `/api/exchange/credentials/${extra.id}`, trader.headers, { is_active: false });
    assert.equal(off.statusCode, 200, off.body);
    assertDetail(
      await o.place(trader, { credential_id: extra.id }),
      400,
      `Credential ${extra.id} is inactive; activate it first`,
    );
    await o.t.database.db
      .update(exchangeCredentials)
      .set({ exchangeName: 'okx' })
      .where(eq(exchangeCredentials.id, extra.id));
    assertDetail(
      await o.place(trader, { credential_id: extra.id }),
      400,
      `Credential ${extra.id} is for okx, not binance`,
    );
    const deactivated = await o.inject('PUT', `/api/exchange/credentials/${trader.credentialId}`, trader.headers, {
      is_active: false,
    });
    assert.equal(deactivated.statusCode, 200, deactivated.body);
    assertDetail(
      await o.place(trader, {}),
      404,
      'No active binance credential; add one with POST /api/exchange/credentials',
    );
    assert.equal((await o.inject('GET', '/api/orders', trader.headers)).json().total, 0);
    assert.equal(o.book.of(trader.account.apiKey).length, 0);
    assert.equal(o.book.of(extra.account.apiKey).length, 0);
  });

  it('is read by the join as Drizzle reads the row', async () => {
    const trader = await o.trader();
    await o.t.database.db
      .update(exchangeCredentials)
      .set({
        permissions: ['spot', 'a "quoted", {braced} one'],
        exchangeMetadata: { a: [1, 'x'] },
        lastUsed: new Date(),
      })
      .where(eq(exchangeCredentials.id, trader.credentialId));
    const [expected] = await o.t.database.db
      .select()
      .from(exchangeCredentials)
      .where(eq(exchangeCredentials.id, trader.credentialId));
    for (const joined of [credentialJoin('binance', trader.credentialId, 2), credentialJoin('binance', undefined, 2)]) {
      const text = `SELECT ${joined.columns} FROM (SELECT $1::uuid AS user_id) AS u ${joined.join}`;
      const rows = rowsOf<Record<string, unknown>>(
        await executeText(o.t.database.db, 'test_credential_join', text, [trader.id, ...joined.params]),
      );
      assert.deepEqual(credentialRowOf(rows[0]!), expected);
    }
  });
});
