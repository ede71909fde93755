// Set-up shared by the portfolio tests: the venue fakes and the app, the balances and BTCUSDT fills
// of a venue account, and that account linked and synced through the API, as a user would.
import assert from 'node:assert/strict';
import type { FakeAccount } from '../../fakes/binance.ts';
import { binanceTrade } from '../../fakes/binance-shapes.ts';
import { buildTestApp, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { storeVenueCredential } from '../../helpers/venue-credentials.ts';
import { startVenueFakes, type VenueFakes } from '../exchange/venue-fakes.ts';

/** Noon (or the given hour) of a day of January 2026, in epoch milliseconds. */
export const day = (d: number, h = 12) => Date.UTC(2026, 0, d, h);

/** Balances as a Binance venue lists them, from each asset's free and locked amounts. */
export const holdings = (amounts: Record<string, [free: string, locked: string]>) =>
  Object.entries(amounts).map(([asset, [free, locked]]) => ({ asset, free, locked }));

/** A BTCUSDT fill as a Binance venue lists it, its fee in USDT unless another asset is named. */
export function btcusdtTrade(fields: Omit<Parameters<typeof binanceTrade>[0], 'symbol'>): Record<string, unknown> {
  return binanceTrade({ symbol: 'BTCUSDT', commissionAsset: 'USDT', ...fields });
}

/** The syncs of a venue's balances and BTCUSDT trades, and of its transfers from `since` when given. */
export const syncUrls = (venue: 'binance' | 'binanceus', since?: string) => [
  `/api/exchange/balance/sync?exchange=${venue}`,
  `/api/exchange/trades/sync?exchange=${venue}&symbol=BTCUSDT`,
  ...(since === undefined ? [] : [`/api/exchange/transfers/sync?exchange=${venue}&since=${since}`]),
];

export async function startPortfolioApp(): Promise<{ fakes: VenueFakes; t: TestApp }> {
  const fakes = await startVenueFakes();
  const t = await buildTestApp({ env: fakes.env() });
  return { fakes, t };
}

/** Runs each sync and asserts it succeeded. */
export async function sync(t: TestApp, who: TestUser, urls: string[]): Promise<void> {
  for (const url of urls) {
    const synced = await t.app.inject({ method: 'POST', url, headers: who.headers });
    assert.equal(synced.statusCode, 200, synced.body);
    assert.equal(synced.json().success, true, synced.body);
  }
}

/** Stores the fake account's keys as the user's credentials for the venue, then runs the syncs. */
export async function linkAndSync(
  t: TestApp,
  who: TestUser,
  venue: 'binance' | 'binanceus',
  keys: FakeAccount,
  urls: string[],
): Promise<void> {
  await storeVenueCredential(t.app, who, venue, keys);
  await sync(t, who, urls);
}
