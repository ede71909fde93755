// Calls without credentials share the venue's kept ccxt instance (decision 375): a last price, asked
// for orders every 2 s, builds no instance (a constructor and the venue's markets copied in are
// milliseconds in one turn of the event loop). A call with credentials still gets an instance of its own.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createMemoryCache } from '../../../src/platform/cache/cache.ts';
import { systemClock } from '../../../src/platform/clock.ts';
import { createVenueBudgets } from '../../../src/platform/venue-budget/venue-budget.ts';
import { createEgress } from '../../../src/platform/venue-budget/egress.ts';
import { CcxtVenueGateway } from '../../../src/modules/exchange/adapters/ccxt-venue-gateway.ts';
import { startBinanceFake, type BinanceFake } from '../../fakes/binance.ts';

describe("the venue's kept instance for calls without credentials", () => {
  let fake: BinanceFake;
  let gateway: CcxtVenueGateway;
  before(async () => {
    fake = await startBinanceFake();
    const budgets = createVenueBudgets({
      cache: createMemoryCache(),
      clock: systemClock,
      settings: { share: 0.8, maxWaitMs: 2_000, egress: 'shared-client', userShare: 1 },
    });
    gateway = new CcxtVenueGateway({
      settings: { binanceApiUrl: fake.url, binanceUsApiUrl: '', apiUrls: {}, rateLimit: false, timeoutMs: 5_000 },
      cache: createMemoryCache(),
      egress: createEgress(budgets, fetch),
      budget: (venue) => budgets.venue(venue),
    });
  });
  after(async () => {
    await fake?.close();
  });

  it('answers tickers and markets again without building an instance; a credentialed call builds its own', async () => {
    const [first] = await gateway.tickers('binance', ['BTC/USDT']);
    assert.ok(first && first.last !== null, 'a last price');
    const built = gateway.clients.built();
    for (let n = 0; n < 3; n++) {
      const [again] = await gateway.tickers('binance', ['BTC/USDT']);
      assert.equal(again?.symbol, 'BTC/USDT');
    }
    assert.ok((await gateway.markets('binance')).some((m) => m.symbol === 'BTC/USDT'));
    assert.equal(gateway.clients.built(), built, 'no instance built for the later calls');
    assert.equal(fake.countRequests('/api/v3/ticker/24hr'), 4, 'each ticker asked of the venue');

    const account = fake.addAccount({
      apiKey: 'shared-client-key',
      secret: 'shared-client-secret',
      balances: [{ asset: 'USDT', free: '10', locked: '0' }],
      trades: {},
    });
    const credentials = { apiKey: account.apiKey, secret: account.secret };
    await gateway.balance('binance', credentials);
    await gateway.balance('binance', credentials);
    assert.equal(gateway.clients.built(), built + 2, 'one instance per credentialed call');
  });
});
