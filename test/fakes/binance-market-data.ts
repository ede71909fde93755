// Deterministic market data for the Binance fake: the same inputs always give the same numbers, so
// tests can assert exact values. Shapes follow Binance's spot REST answers field for field.

export interface FakeSymbol {
  symbol: string;
  base: string;
  quote: string;
  /** Last price, as Binance sends it: a string. */
  price: string;
  /** 24 h change in percent. */
  changePercent: number;
  /** 24 h base-asset volume. */
  volume: number;
  /** Trades in 24 h. */
  count: number;
  minQty: string;
  stepSize: string;
  tickSize: string;
  minNotional: string;
  /** The exchangeInfo entry. */
  info: Record<string, unknown>;
}

const SEED: [string, string, number, number, number, number][] = [
  // base, quote, price, 24h change %, 24h volume, trades
  ['BTC', 'USDT', 65000, 2.5, 12000, 1_800_000],
  ['ETH', 'USDT', 3200, -1.8, 250000, 1_200_000],
  ['BNB', 'USDT', 580, 0.9, 400000, 400_000],
  ['SOL', 'USDT', 150, 6.2, 3_000_000, 900_000],
  ['XRP', 'USDT', 0.52, -3.4, 400_000_000, 500_000],
  ['ADA', 'USDT', 0.45, 1.1, 300_000_000, 250_000],
  ['DOGE', 'USDT', 0.12, 8.7, 2_000_000_000, 600_000],
  ['LTC', 'USDT', 80, -0.6, 900_000, 150_000],
  ['LINK', 'USDT', 14, 3.3, 5_000_000, 200_000],
  ['DOT', 'USDT', 6.5, -5.2, 8_000_000, 180_000],
  ['AVAX', 'USDT', 30, 4.4, 3_000_000, 220_000],
  ['TRX', 'USDT', 0.12, 0.2, 900_000_000, 120_000],
  ['ETH', 'BTC', 0.049, -4.2, 90_000, 300_000],
  ['BNB', 'BTC', 0.0089, -1.6, 60_000, 80_000],
  ['BTC', 'USDC', 65010, 2.4, 3000, 400_000],
  ['ETH', 'USDC', 3201, -1.7, 40000, 200_000],
  ['SOL', 'BTC', 0.0023, 3.6, 200_000, 70_000],
  ['BTC', 'EUR', 60000, 2.2, 500, 50_000],
];

function decimals(value: number): number {
  if (value >= 1000) return 2;
  if (value >= 1) return 4;
  if (value >= 0.01) return 6;
  return 8;
}

const fmt = (value: number, places = 8) => value.toFixed(places);

export function marketSymbols(variant: 'global' | 'us'): FakeSymbol[] {
  return SEED.filter(([, quote]) => variant === 'global' || quote !== 'EUR').map(
    ([base, quote, price, change, volume, count]) => {
      const symbol = `${base}${quote}`;
      const places = decimals(price);
      const tickSize = fmt(10 ** -places);
      const minQty = price >= 1000 ? '0.00001000' : price >= 10 ? '0.00100000' : '1.00000000';
      const minNotional = quote === 'BTC' ? '0.00010000' : variant === 'us' ? '10.00000000' : '5.00000000';
      const notionalFilter =
        variant === 'us'
          ? { filterType: 'MIN_NOTIONAL', minNotional, applyToMarket: true, avgPriceMins: 5 }
          : {
              filterType: 'NOTIONAL',
              minNotional,
              applyMinToMarket: true,
              maxNotional: '9000000.00000000',
              applyMaxToMarket: false,
              avgPriceMins: 5,
            };
      return {
        symbol,
        base,
        quote,
        price: fmt(price, places),
        changePercent: change,
        volume,
        count,
        minQty,
        stepSize: minQty,
        tickSize,
        minNotional,
        info: {
          symbol,
          status: 'TRADING',
          baseAsset: base,
          baseAssetPrecision: 8,
          quoteAsset: quote,
          quotePrecision: 8,
          quoteAssetPrecision: 8,
          baseCommissionPrecision: 8,
          quoteCommissionPrecision: 8,
          orderTypes: ['LIMIT', 'LIMIT_MAKER', 'MARKET', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT_LIMIT'],
          icebergAllowed: true,
          ocoAllowed: true,
          quoteOrderQtyMarketAllowed: true,
          allowTrailingStop: true,
          cancelReplaceAllowed: true,
          isSpotTradingAllowed: true,
          isMarginTradingAllowed: false,
          filters: [
            { filterType: 'PRICE_FILTER', minPrice: tickSize, maxPrice: '1000000.00000000', tickSize },
            { filterType: 'LOT_SIZE', minQty, maxQty: '9000.00000000', stepSize: minQty },
            notionalFilter,
            { filterType: 'MARKET_LOT_SIZE', minQty: '0.00000000', maxQty: '100.00000000', stepSize: '0.00000000' },
            { filterType: 'MAX_NUM_ORDERS', maxNumOrders: 200 },
          ],
          permissions: [],
          permissionSets: [['SPOT']],
          defaultSelfTradePreventionMode: 'EXPIRE_MAKER',
          allowedSelfTradePreventionModes: ['EXPIRE_TAKER', 'EXPIRE_MAKER', 'EXPIRE_BOTH'],
        },
      };
    },
  );
}

export function ticker24hr(s: FakeSymbol, now: number): Record<string, unknown> {
  const last = Number(s.price);
  const open = last / (1 + s.changePercent / 100);
  const places = decimals(last);
  const quoteVolume = s.volume * last;
  return {
    symbol: s.symbol,
    priceChange: fmt(last - open, places),
    priceChangePercent: s.changePercent.toFixed(3),
    weightedAvgPrice: fmt((last + open) / 2, places),
    prevClosePrice: fmt(open, places),
    lastPrice: s.price,
    lastQty: '0.01000000',
    bidPrice: fmt(last - 10 ** -places, places),
    bidQty: '1.50000000',
    askPrice: fmt(last + 10 ** -places, places),
    askQty: '2.00000000',
    openPrice: fmt(open, places),
    highPrice: fmt(Math.max(open, last) * 1.01, places),
    lowPrice: fmt(Math.min(open, last) * 0.99, places),
    volume: fmt(s.volume),
    quoteVolume: fmt(quoteVolume),
    openTime: now - 86_400_000,
    closeTime: now,
    firstId: 1_000_000,
    lastId: 1_000_000 + s.count - 1,
    count: s.count,
  };
}

const INTERVAL_MS: Record<string, number> = {
  '1s': 1_000,
  '1m': 60_000,
  '3m': 180_000,
  '5m': 300_000,
  '15m': 900_000,
  '30m': 1_800_000,
  '1h': 3_600_000,
  '2h': 7_200_000,
  '4h': 14_400_000,
  '6h': 21_600_000,
  '8h': 28_800_000,
  '12h': 43_200_000,
  '1d': 86_400_000,
  '3d': 259_200_000,
  '1w': 604_800_000,
  // Binance's months are calendar months; 30 days is close enough for a fake.
  '1M': 2_592_000_000,
};

/** The fake's price of a symbol at the open of a candle: a slow deterministic wave around the last price. */
function priceAt(s: FakeSymbol, openTime: number, intervalMs: number): number {
  return Number(s.price) * (1 + 0.02 * Math.sin(openTime / (intervalMs * 7)));
}

export function klinesFor(
  s: FakeSymbol,
  query: { interval: string; startTime?: number; endTime?: number; limit: number; now: number },
): unknown[][] | undefined {
  const step = INTERVAL_MS[query.interval];
  if (!step) return undefined;
  const align = (t: number) => Math.floor(t / step) * step;
  const lastOpen = align(Math.min(query.endTime ?? query.now, query.now));
  let first: number;
  if (query.startTime !== undefined) first = Math.ceil(query.startTime / step) * step;
  else first = lastOpen - (query.limit - 1) * step;
  const rows: unknown[][] = [];
  const places = decimals(Number(s.price));
  for (let open = first; open <= lastOpen && rows.length < query.limit; open += step) {
    const o = priceAt(s, open, step);
    const c = priceAt(s, open + step, step);
    const volume = s.volume / (86_400_000 / step);
    rows.push([
      open,
      fmt(o, places),
      fmt(Math.max(o, c) * 1.002, places),
      fmt(Math.min(o, c) * 0.998, places),
      fmt(c, places),
      fmt(volume),
      open + step - 1,
      fmt(volume * c),
      Math.max(1, Math.round(s.count / (86_400_000 / step))),
      fmt(volume / 2),
      fmt((volume * c) / 2),
      '0',
    ]);
  }
  return rows;
}

export function bookFor(s: FakeSymbol, limit: number): { lastUpdateId: number; bids: string[][]; asks: string[][] } {
  const last = Number(s.price);
  const places = decimals(last);
  const tick = 10 ** -places;
  const bids: string[][] = [];
  const asks: string[][] = [];
  for (let i = 0; i < limit; i++) {
    bids.push([fmt(last - tick * (i + 1), places), fmt(0.5 + i * 0.25)]);
    asks.push([fmt(last + tick * (i + 1), places), fmt(0.4 + i * 0.2)]);
  }
  return { lastUpdateId: 1_027_024, bids, asks };
}

/** One entry of the all-market mini-ticker stream (`!miniTicker@arr`), fields as Binance names them. */
export function miniTicker(s: FakeSymbol, now: number): Record<string, unknown> {
  const full = ticker24hr(s, now);
  return {
    e: '24hrMiniTicker',
    E: now,
    s: s.symbol,
    c: full.lastPrice,
    o: full.openPrice,
    h: full.highPrice,
    l: full.lowPrice,
    v: full.volume,
    q: full.quoteVolume,
  };
}
