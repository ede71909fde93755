// Set-up shared by the trades tests: the venue fakes and the app, and a user whose Binance account
// holds trades on three pairs, its keys stored as the user's credentials.
import type { LightMyRequestResponse } from 'fastify';
import type { FakeAccount } from '../../fakes/binance.ts';
import { binanceTrade } from '../../fakes/binance-shapes.ts';
import type { FakeSymbol } from '../../fakes/binance-market-data.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { storeVenueCredential } from '../../helpers/venue-credentials.ts';
import { addAccount, startVenueFakes, type VenueFakes } from './venue-fakes.ts';

/** Noon (or the given hour) of a day of January 2026, in epoch milliseconds. */
export const day = (d: number, h = 12) => Date.UTC(2026, 0, d, h);

export interface TradesApp {
  fakes: VenueFakes;
  t: TestApp;
  user: TestUser;
  account: FakeAccount;
  call(method: 'GET' | 'POST', url: string, who?: TestUser | null): Promise<LightMyRequestResponse>;
}

export async function startTradesApp(options: { extraBinanceMarkets?: FakeSymbol[] } = {}): Promise<TradesApp> {
  const fakes = await startVenueFakes(options);
  const t = await buildTestApp({ env: fakes.env() });
  const user = await signIn(t.app, t.database);
  const account = addAccount(fakes.binance, {
    trades: {
      BTCUSDT: [
        binanceTrade({
          symbol: 'BTCUSDT',
          id: 101,
          price: '65000.10',
          qty: '0.01000000',
          isBuyer: true,
          time: day(2),
        }),
        binanceTrade({
          symbol: 'BTCUSDT',
          id: 102,
          price: '65100.20',
          qty: '0.00500000',
          isBuyer: false,
          time: day(3),
          commission: '0.32550100',
          commissionAsset: 'USDT',
        }),
      ],
      // Binance numbers each symbol's trades on its own: id 101 exists on both pairs.
      ETHUSDT: [
        binanceTrade({
          symbol: 'ETHUSDT',
          id: 101,
          price: '3200.00',
          qty: '0.10000000',
          isBuyer: true,
          time: day(4),
        }),
      ],
      XRPUSDT: [
        binanceTrade({
          symbol: 'XRPUSDT',
          id: 1,
          price: '0.1',
          qty: '1',
          isBuyer: true,
          time: day(5),
          commission: '0.1',
          commissionAsset: 'USDT',
        }),
        binanceTrade({
          symbol: 'XRPUSDT',
          id: 2,
          price: '0.2',
          qty: '1',
          isBuyer: false,
          time: day(6),
          commission: '0.2',
          commissionAsset: 'USDT',
        }),
      ],
    },
  });
  await storeVenueCredential(t.app, user, 'binance', account);
  const call = (method: 'GET' | 'POST', url: string, who: TestUser | null = user) =>
    t.app.inject({ method, url, headers: who?.headers ?? {} });
  return { fakes, t, user, account, call };
}
