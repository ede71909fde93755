// The venues this platform connects to, by ccxt id (docs/decisions/030-exchange-venues.md). Each is
// proven against a loopback fake of its real protocol (the Binance tests, and the venue conformance
// suite for the others); kucoin, gate, bitfinex and gemini were removed for want of one (decision 206).
export const VENUES = ['binanceus', 'binance', 'coinbase', 'kraken', 'okx', 'bybit'] as const;
export type Venue = (typeof VENUES)[number];

/** The default venue of the contract: the US venue. */
export const DEFAULT_VENUE: Venue = 'binanceus';

/** The two venues with the fee-token (BNB) account endpoints. */
export const BINANCE_VENUES = ['binanceus', 'binance'] as const;
export type BinanceVenue = (typeof BINANCE_VENUES)[number];

export const FEE_TOKEN = 'BNB';

/** Valued at 1 USD in account summaries. */
export const USD_STABLECOINS = ['USDT', 'USDC', 'BUSD', 'USD'] as const;

/** Markets change rarely; one load an hour per venue, shared by every instance through the cache. */
export const MARKETS_TTL_MS = 60 * 60 * 1000;

/** Health checks are answered from the cache for this long unless force_refresh is set. */
export const HEALTH_TTL_MS = 60 * 1000;

export function isVenue(value: string): value is Venue {
  return (VENUES as readonly string[]).includes(value);
}
