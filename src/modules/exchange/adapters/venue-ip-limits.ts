// What Kraken, Coinbase, OKX and Bybit allow one IP a minute, as the venue budget counts it (docs/decisions/980):
// one weight per call against the venue's documented public-data limit, so that each user's share of the
// minute (decision 200) and the shares of background work hold on these venues as they do on Binance.
// Kraken, Coinbase and OKX count private calls per key or account only (venue-key-limits.ts, decision 255):
// those weigh nothing here. Bybit counts every call per IP as well.
import type { VenueWeights } from '../../../platform/venue-budget/guarded-fetch.ts';
import type { IpBurst } from '../../../platform/venue-budget/key-limits.ts';
import { COINBASE_PUBLIC } from './venue-key-limits.ts';

type IpLimitedVenue = 'kraken' | 'coinbase' | 'okx' | 'bybit';

/**
 * Calls a minute per IP, from each venue's documentation of its public REST data; where it states limits per
 * endpoint group, the public market data one:
 * - Kraken: public endpoints about one call a second (ccxt's own spacing, 1000 ms) → 60, spread (IP_BURSTS);
 * - Coinbase Advanced Trade: public endpoints 10 a second per IP → 600;
 * - OKX: market data (market/ticker, market/tickers, public/instruments) 20 per 2 s per IP → 600;
 * - Bybit: 600 per 5 s per IP over every endpoint → 7200.
 */
export const IP_CALLS_PER_MINUTE: Readonly<Record<IpLimitedVenue, number>> = {
  kraken: 60,
  coinbase: 600,
  okx: 600,
  bybit: 7_200,
};

/**
 * The shorter windows the same documentation states, where a minute's share taken at once would go over
 * them: a user's quarter of OKX's minute is 120 calls, six times OKX's 20 per 2 s. Kraken states no window
 * but counts public calls as it counts a key's private ones, a counter decaying about one call a second:
 * modelled as a counter of one call decaying 1/s (decision 1040), so a user's twelve calls of the minute
 * are spread over it instead of going out at once and drawing Kraken's 429, which pauses it for everyone.
 */
const IP_BURSTS: Readonly<Partial<Record<IpLimitedVenue, IpBurst>>> = {
  kraken: { max: 1, perSecond: 1 },
  coinbase: { count: 10, windowMs: 1_000 },
  okx: { count: 20, windowMs: 2_000 },
  bybit: { count: 600, windowMs: 5_000 },
};

/** Which calls the venue counts per IP. */
const COUNTED_PER_IP: Readonly<Record<IpLimitedVenue, (url: URL) => boolean>> = {
  kraken: (url) => !url.pathname.startsWith('/0/private/'),
  coinbase: (url) => COINBASE_PUBLIC.test(url.pathname),
  okx: (url) => !url.pathname.startsWith('/api/v5/') || /^\/api\/v5\/(public|market)\//.test(url.pathname),
  bybit: () => true,
};

/**
 * One weight per call the venue counts per IP, against its minute (and its short window); its answers
 * carry no count of their own.
 */
export function ipLimitWeights(venue: string): VenueWeights | undefined {
  const limit = IP_CALLS_PER_MINUTE[venue as IpLimitedVenue];
  if (limit === undefined) return undefined;
  const perIp = COUNTED_PER_IP[venue as IpLimitedVenue];
  const burst = IP_BURSTS[venue as IpLimitedVenue];
  return {
    defaultLimit: limit,
    weigh: (url) => (perIp(url) ? 1 : 0),
    usedWeight: () => undefined,
    ...(burst ? { burst } : {}),
  };
}
