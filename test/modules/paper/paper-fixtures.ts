// Shared set-up of the paper tests: the market harness with a patient upstream bound, answering.
import { randomUUID } from 'node:crypto';
import type { VenueOrderRequest } from '../../../src/platform/order-venue.ts';
import { waitFor } from '../../helpers/wait.ts';
import { PATIENT, startMarket, type MarketHarness } from '../market/market-fixtures.ts';

export { PATIENT };

/**
 * The market harness once its Binance fake has answered a book and ccxt is loaded: on a busy machine
 * the first calls of a process can fail to connect, and these tests are about matching, not about that (the engine's
 * refusal when the book cannot be read has its own test).
 */
export async function startPaperMarket(env: Record<string, string> = {}): Promise<MarketHarness> {
  const m = await startMarket({ env: { ...PATIENT, ...env } });
  await waitFor(
    async () => (await m.get('/api/v1/market/orderbook?symbol=BTCUSDT')).status === 200,
    'the market to answer a book',
    60_000,
    250,
  )
    // A first order reads the venue's fees from ccxt, whose one-off load (seconds of a busy machine's
    // CPU) is kept out of its book read's bound (paper-first-order.test.ts, decision 700) but not out of
    // the test's time; these tests are about matching, so the load happens here.
    .then(() => m.modules.exchange.tradingFees('binance'))
    .catch(async (error: unknown) => {
      await m.stop();
      throw error;
    });
  return m;
}

/** A resting-kind order for the paper venue: a Binance BTC/USDT limit buy, GTC, with a fresh client order id. */
export function limitBuy(
  userId: string,
  o: Partial<VenueOrderRequest> & Pick<VenueOrderRequest, 'amount' | 'price'>,
): VenueOrderRequest {
  return {
    userId,
    exchange: 'binance',
    symbol: 'BTC/USDT',
    clientOrderId: `t-${randomUUID()}`,
    side: 'buy',
    type: 'limit',
    timeInForce: 'GTC',
    credentialId: null,
    ...o,
  };
}
