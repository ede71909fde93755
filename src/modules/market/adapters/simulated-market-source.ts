// A deterministic offline market for demos (MARKET_DATA_SOURCE=simulated): a fixed list of pairs and
// assets whose prices follow a slow wave of the clock. Never used unless configured, and every
// answer built from it carries `"source": "simulated"`.
import { Decimal } from 'decimal.js';
import type { Clock } from '../../../platform/clock.ts';
import { notFound } from '../../../platform/http/errors.ts';
import { INTERVAL_MS, type Interval } from '../intervals.domain.ts';
import type { Candle, GlobalFigures, SymbolInfo, Ticker24h, TopAsset } from '../market.types.ts';
import type { AssetMarketSource, SpotMarketSource } from './market-source.ts';

const SIMULATED = 'simulated';

// base, quote, reference price, trades per day, base volume per day
const PAIRS: [string, string, number, number, number][] = [
  ['BTC', 'USDT', 60000, 1_500_000, 15000],
  ['ETH', 'USDT', 3000, 1_000_000, 300000],
  ['BNB', 'USDT', 550, 300_000, 400000],
  ['SOL', 'USDT', 140, 800_000, 3_000_000],
  ['XRP', 'USDT', 0.5, 400_000, 400_000_000],
  ['ADA', 'USDT', 0.4, 200_000, 300_000_000],
  ['DOGE', 'USDT', 0.1, 500_000, 2_000_000_000],
  ['LINK', 'USDT', 15, 150_000, 5_000_000],
  ['ETH', 'BTC', 0.05, 250_000, 90000],
  ['SOL', 'BTC', 0.0023, 60_000, 200_000],
];
const NAMES: Record<string, string> = {
  BTC: 'Bitcoin',
  ETH: 'Ethereum',
  BNB: 'BNB',
  SOL: 'Solana',
  XRP: 'XRP',
  ADA: 'Cardano',
  DOGE: 'Dogecoin',
  LINK: 'Chainlink',
};
const DAY = 86_400_000;

const wave = (reference: number, at: number, periodMs: number, phase: number) =>
  reference * (1 + 0.03 * Math.sin(at / periodMs + phase));
const fixed = (value: number) => new Decimal(value).toSignificantDigits(8).toString();

function priceAt(index: number, at: number): number {
  const [, , reference] = PAIRS[index]!;
  return wave(reference, at, 6 * 3_600_000, index);
}

function ticker(index: number, now: number): Ticker24h {
  const [base, quote, , trades, volume] = PAIRS[index]!;
  const last = priceAt(index, now);
  const open = priceAt(index, now - DAY);
  return {
    symbol: `${base}${quote}`,
    lastPrice: fixed(last),
    openPrice: fixed(open),
    highPrice: fixed(Math.max(last, open) * 1.01),
    lowPrice: fixed(Math.min(last, open) * 0.99),
    priceChange: fixed(last - open),
    priceChangePercent: new Decimal(((last - open) / open) * 100).toDecimalPlaces(3).toString(),
    weightedAvgPrice: fixed((last + open) / 2),
    bidPrice: fixed(last * 0.9999),
    askPrice: fixed(last * 1.0001),
    volume: fixed(volume),
    quoteVolume: fixed(volume * last),
    count: trades,
    openTime: now - DAY,
    closeTime: now,
  };
}

function indexOf(symbol: string): number {
  const index = PAIRS.findIndex(([base, quote]) => `${base}${quote}` === symbol);
  if (index < 0) throw notFound(`Unknown symbol: ${symbol}`);
  return index;
}

export function createSimulatedSpotSource(clock: Clock): SpotMarketSource {
  const now = () => clock.now().getTime();
  return {
    name: SIMULATED,
    async symbols(): Promise<SymbolInfo[]> {
      return PAIRS.map(([base, quote]) => ({ symbol: `${base}${quote}`, base, quote, status: 'TRADING' }));
    },
    async tickers() {
      const at = now();
      return PAIRS.map((_, i) => ticker(i, at));
    },
    async prices() {
      const at = now();
      return PAIRS.map(([base, quote], i) => ({ symbol: `${base}${quote}`, price: fixed(priceAt(i, at)) }));
    },
    async klines(symbol, interval: Interval, page): Promise<Candle[]> {
      const index = indexOf(symbol);
      const step = INTERVAL_MS[interval];
      const last = Math.floor(Math.min(page.endTime ?? now(), now()) / step) * step;
      const [, , , trades, volume] = PAIRS[index]!;
      const candles: Candle[] = [];
      for (let open = last - (page.limit - 1) * step; open <= last; open += step) {
        const o = priceAt(index, open);
        const c = priceAt(index, open + step);
        const v = (volume * step) / DAY;
        candles.push({
          openTime: open,
          open: fixed(o),
          high: fixed(Math.max(o, c) * 1.002),
          low: fixed(Math.min(o, c) * 0.998),
          close: fixed(c),
          volume: fixed(v),
          closeTime: open + step - 1,
          quoteVolume: fixed(v * c),
          trades: Math.max(1, Math.round((trades * step) / DAY)),
        });
      }
      return candles;
    },
    async orderBook(symbol, limit) {
      const last = priceAt(indexOf(symbol), now());
      const level = (side: 1 | -1, i: number): [string, string] => [
        fixed(last * (1 + side * 0.0001 * (i + 1))),
        fixed(0.5 + i * 0.25),
      ];
      return {
        lastUpdateId: Math.floor(now() / 1000),
        bids: Array.from({ length: limit }, (_, i) => level(-1, i)),
        asks: Array.from({ length: limit }, (_, i) => level(1, i)),
      };
    },
    usage: () => null,
  };
}

export function createSimulatedAssetSource(clock: Clock): AssetMarketSource {
  const now = () => clock.now().getTime();
  const assets = () => {
    const at = now();
    return PAIRS.flatMap(([base, quote, , , volume], i) => {
      if (quote !== 'USDT') return [];
      const price = priceAt(i, at);
      const supply = (volume * 1000) / (i + 1);
      return [{ base, price, marketCap: price * supply, supply, change: Number(ticker(i, at).priceChangePercent) }];
    }).sort((a, b) => b.marketCap - a.marketCap);
  };
  return {
    name: SIMULATED,
    async topAssets(limit): Promise<TopAsset[]> {
      const updated = new Date(now()).toISOString();
      return assets()
        .slice(0, limit)
        .map((a, i) => ({
          id: NAMES[a.base]!.toLowerCase(),
          symbol: a.base,
          name: NAMES[a.base]!,
          image: null,
          currentPrice: a.price,
          marketCap: a.marketCap,
          marketCapRank: i + 1,
          totalVolume: a.marketCap * 0.04,
          high24h: a.price * 1.01,
          low24h: a.price * 0.99,
          priceChange24h: a.price - a.price / (1 + a.change / 100),
          priceChangePercentage24h: a.change,
          circulatingSupply: a.supply,
          totalSupply: a.supply,
          maxSupply: null,
          ath: null,
          athDate: null,
          lastUpdated: updated,
        }));
    },
    async globalFigures(): Promise<GlobalFigures> {
      const list = assets();
      const total = list.reduce((sum, a) => sum + a.marketCap, 0);
      return {
        activeCryptocurrencies: list.length,
        markets: PAIRS.length,
        totalMarketCapUsd: total,
        totalVolumeUsd: total * 0.04,
        marketCapPercentage: Object.fromEntries(list.map((a) => [a.base.toLowerCase(), (a.marketCap / total) * 100])),
        marketCapChangePercentage24hUsd: list.reduce((sum, a) => sum + a.change, 0) / list.length,
        updatedAt: Math.floor(now() / 1000),
      };
    },
    usage: () => null,
  };
}
