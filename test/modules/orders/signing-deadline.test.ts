// A live send is signed within SIGN_WITHIN_MS of its claim, or not at all (decision 1310). A lookup that
// finds no order rejects it once the venue's receive window has passed since the claim, and the venue takes
// a request for that window after its own timestamp, set when it is signed. A send signed later than the
// lookup allowed for could be taken after the order was rejected. Made for real: Coinbase's ticker, which a
// market buy reads before its order, answers slowly while the clock passes the deadline.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { SIGN_WITHIN_MS } from '../../../src/platform/order-venue.ts';
import { ordersOf } from '../../fakes/venue-loopback.ts';
import { storeVenueCredential } from '../../helpers/venue-credentials.ts';
import { waitFor } from '../../helpers/wait.ts';
import { CONFORMANCE_VENUES, conformanceAccount, type ConformanceFake } from '../exchange/conformance-venues.ts';
import { startVenueOrdersApp, type VenueOrdersApp } from './orders-fixtures.ts';

const coinbase = CONFORMANCE_VENUES.find((v) => v.venue === 'coinbase')!;
const TICKER = '/api/v3/brokerage/market/products/BTC-USDT/ticker';
const MARKET_BUY = { exchange: 'coinbase', symbol: 'BTC/USDT', side: 'buy', type: 'market', amount: '0.001' };

describe('a live send past its signing deadline', () => {
  let o: VenueOrdersApp;
  let fake: ConformanceFake;
  before(async () => {
    o = await startVenueOrdersApp([coinbase], {
      TRADING_MAX_ORDER_NOTIONAL: 'none',
      TRADING_PRICE_BAND_PERCENT: 'none',
    });
    fake = o.fakes.get(coinbase.venue)!;
  });
  after(async () => {
    await o?.close();
  });

  async function trader() {
    const account = fake.addAccount(conformanceAccount(coinbase, 0));
    const user = await o.trader();
    await storeVenueCredential(o.t.app, user, 'coinbase', account);
    return { user, account };
  }

  /**
   * Once the order is stored and claimed, the send's own ticker request has come (the checks before the
   * order is stored may read the ticker too): on the real clock, at or after the claim.
   */
  async function sendAskedTicker(userId: string, from: number): Promise<boolean> {
    const [claimed] = await o.t.database.rows<{ sent_at: Date | string }>(
      sql`SELECT sent_at FROM orders WHERE user_id = ${userId} AND status = 'unknown'`,
    );
    if (!claimed) return false;
    const claimedAtReal = new Date(claimed.sent_at).getTime() - (o.clock.now().getTime() - Date.now());
    return fake.requests.slice(from).some((r) => r.method === 'GET' && r.path === TICKER && r.at >= claimedAtReal);
  }
  /** Both the checks' ticker read and the send's answer slowly. */
  const slowTickers = () => {
    for (let i = 0; i < 2; i++)
      fake.fault('slow-after', { path: TICKER, method: 'GET', ms: 400, reply5xx: coinbase.outage });
  };
  const ordersSent = (from: number) =>
    fake.requests.slice(from).filter((r) => r.path === coinbase.orders.place.path).length;

  it('is refused before anything is sent: rejected, never looked up for, nothing at the venue', async () => {
    const { user, account } = await trader();
    const from = fake.requests.length;
    slowTickers();
    const placing = o.place(user, MARKET_BUY);
    await waitFor(() => sendAskedTicker(user.id, from), 'the claimed send to ask its ticker');
    o.clock.advance(SIGN_WITHIN_MS + 1_000);
    const placed = await placing;

    assert.equal(placed.statusCode, 201, placed.body);
    const order = placed.json();
    assert.equal(order.status, 'rejected', placed.body);
    assert.match(order.reason, /could not be signed within 5 s of being stored/);
    assert.equal(ordersSent(from), 0, 'no order request left');
    assert.equal(ordersOf(account).length, 0);
    fake.clearFailures();
  });

  it('is sent when signed in time, with the same slow ticker', async () => {
    const { user, account } = await trader();
    const from = fake.requests.length;
    slowTickers();
    const placing = o.place(user, MARKET_BUY);
    await waitFor(() => sendAskedTicker(user.id, from), 'the claimed send to ask its ticker');
    o.clock.advance(SIGN_WITHIN_MS - 1_000);
    const placed = await placing;

    assert.equal(placed.statusCode, 201, placed.body);
    assert.equal(placed.json().status, 'filled', placed.body);
    assert.equal(ordersSent(from), 1);
    assert.equal(ordersOf(account).length, 1);
    fake.clearFailures();
  });
});
