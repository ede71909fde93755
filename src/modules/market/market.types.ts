// The market data the sources deliver, normalised. Prices and volumes stay the venue's decimal
// strings until they are answered (as JSON numbers) or summed (with decimal.js), so nothing is
// rounded twice.

export interface SymbolInfo {
  /** Venue form, e.g. BTCUSDT. */
  symbol: string;
  base: string;
  quote: string;
  /** Venue status, e.g. TRADING, HALT, BREAK. */
  status: string;
}

export interface Ticker24h {
  symbol: string;
  lastPrice: string;
  openPrice: string;
  highPrice: string;
  lowPrice: string;
  priceChange: string;
  priceChangePercent: string;
  weightedAvgPrice: string;
  bidPrice: string;
  askPrice: string;
  /** Base-asset volume. */
  volume: string;
  /** Quote-asset volume. */
  quoteVolume: string;
  /** Trades in the window. */
  count: number;
  openTime: number;
  closeTime: number;
}

/** A 24 h ticker of a listed, trading pair, with its assets. */
export interface PairTicker extends Ticker24h {
  base: string;
  quote: string;
}

export interface PriceQuote {
  symbol: string;
  price: string;
}

export interface Candle {
  openTime: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
  closeTime: number;
  quoteVolume: string;
  trades: number;
}

export interface OrderBook {
  lastUpdateId: number;
  bids: [string, string][];
  asks: [string, string][];
}

/** One asset of CoinGecko's /coins/markets, the fields we answer. */
export interface TopAsset {
  id: string;
  symbol: string;
  name: string;
  image: string | null;
  currentPrice: number | null;
  marketCap: number | null;
  marketCapRank: number | null;
  totalVolume: number | null;
  high24h: number | null;
  low24h: number | null;
  priceChange24h: number | null;
  priceChangePercentage24h: number | null;
  circulatingSupply: number | null;
  totalSupply: number | null;
  maxSupply: number | null;
  ath: number | null;
  athDate: string | null;
  lastUpdated: string | null;
}

/** CoinGecko's /global figures, in USD. */
export interface GlobalFigures {
  activeCryptocurrencies: number | null;
  markets: number | null;
  totalMarketCapUsd: number | null;
  totalVolumeUsd: number | null;
  /** Asset symbol (lower case) → share of the total market cap in percent. */
  marketCapPercentage: Record<string, number>;
  marketCapChangePercentage24hUsd: number | null;
  /** Unix seconds. */
  updatedAt: number | null;
}

/** What an upstream has cost and how it behaved, for GET /market/status. */
export interface UpstreamUsage {
  name: string;
  /** The venue's one breaker (decision 174), as this instance last saw it. */
  breakerOpen: boolean;
  breakerUntil: number | null;
  breakerReason: string | null;
  consecutiveFailures: number;
  calls: number;
  failures: number;
  lastSuccessAt: number | null;
  lastFailureAt: number | null;
  lastError: string | null;
  usedWeight1m: number | null;
  weightLimit1m: number | null;
  weightBudget1m: number | null;
}
