// Binance spot public REST (Binance's spot API documentation) over plain HTTP: public data needs no signing, so no
// ccxt. Requests are sized for the weight budget: one call for all 24 h tickers (weight 80) or all
// prices (4) serves every symbol, klines are always fetched 1000 at a time (weight 2 at any size),
// order books 100 levels deep (weight 5 at any depth up to 100). The client's guarded fetch charges
// each call from Binance's one weight table (exchange/adapters/venue-profiles.ts) and reads the
// real limit from exchangeInfo's rateLimits.
import { notFound } from '../../../platform/http/errors.ts';
import type { Interval } from '../intervals.domain.ts';
import type { Candle, OrderBook, PriceQuote, SymbolInfo, Ticker24h } from '../market.types.ts';
import type { SpotMarketSource } from './market-source.ts';
import { shapes, UpstreamHttpError, type UpstreamClient } from './upstream-client.ts';

const INVALID_SYMBOL = -1121;

const RECORDS = shapes.listOf(shapes.record);
const EXCHANGE_INFO = shapes.withLists('symbols');
const KLINES = shapes.listOf((k) => Array.isArray(k) && k.length >= 9);
const BOOK = shapes.withLists('bids', 'asks');

interface ExchangeInfo {
  symbols: { symbol: string; status: string; baseAsset: string; quoteAsset: string }[];
}

type RawTicker = Record<keyof Ticker24h, string | number>;
type RawKline = [number, string, string, string, string, string, number, string, number, ...unknown[]];

/** Binance's `{code, msg}` error body as a sentence. */
export function describeBinanceError(body: unknown): string | undefined {
  if (body && typeof body === 'object' && 'msg' in body) {
    const { code, msg } = body as { code?: number; msg?: unknown };
    return `${String(msg)}${code !== undefined ? ` (code ${code})` : ''}`;
  }
  return undefined;
}

export function createBinanceMarketSource(client: UpstreamClient): SpotMarketSource {
  /** An invalid symbol is the caller's mistake (404), not an upstream failure. */
  async function forSymbol<T>(symbol: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      const body =
        error instanceof UpstreamHttpError ? (error.upstreamBody as { code?: number } | undefined) : undefined;
      if (body?.code === INVALID_SYMBOL) throw notFound(`Unknown symbol: ${symbol}`);
      throw error;
    }
  }

  return {
    name: 'binance',

    async symbols(): Promise<SymbolInfo[]> {
      const info = await client.get<ExchangeInfo>('/api/v3/exchangeInfo', EXCHANGE_INFO, {
        showPermissionSets: 'false',
      });
      return info.symbols.map((s) => ({ symbol: s.symbol, base: s.baseAsset, quote: s.quoteAsset, status: s.status }));
    },

    async tickers(): Promise<Ticker24h[]> {
      const rows = await client.get<RawTicker[]>('/api/v3/ticker/24hr', RECORDS);
      return rows.map((r) => ({
        symbol: String(r.symbol),
        lastPrice: String(r.lastPrice),
        openPrice: String(r.openPrice),
        highPrice: String(r.highPrice),
        lowPrice: String(r.lowPrice),
        priceChange: String(r.priceChange),
        priceChangePercent: String(r.priceChangePercent),
        weightedAvgPrice: String(r.weightedAvgPrice),
        bidPrice: String(r.bidPrice),
        askPrice: String(r.askPrice),
        volume: String(r.volume),
        quoteVolume: String(r.quoteVolume),
        count: Number(r.count),
        openTime: Number(r.openTime),
        closeTime: Number(r.closeTime),
      }));
    },

    async prices(): Promise<PriceQuote[]> {
      const rows = await client.get<PriceQuote[]>('/api/v3/ticker/price', RECORDS);
      return rows.map((r) => ({ symbol: String(r.symbol), price: String(r.price) }));
    },

    async klines(symbol, interval: Interval, page): Promise<Candle[]> {
      const rows = await forSymbol(symbol, () =>
        client.get<RawKline[]>('/api/v3/klines', KLINES, {
          symbol,
          interval,
          endTime: page.endTime,
          limit: page.limit,
        }),
      );
      return rows.map((k) => ({
        openTime: Number(k[0]),
        open: String(k[1]),
        high: String(k[2]),
        low: String(k[3]),
        close: String(k[4]),
        volume: String(k[5]),
        closeTime: Number(k[6]),
        quoteVolume: String(k[7]),
        trades: Number(k[8]),
      }));
    },

    async orderBook(symbol, limit): Promise<OrderBook> {
      const book = await forSymbol(symbol, () =>
        client.get<{ lastUpdateId: number; bids: [string, string][]; asks: [string, string][] }>(
          '/api/v3/depth',
          BOOK,
          { symbol, limit },
        ),
      );
      return { lastUpdateId: Number(book.lastUpdateId), bids: book.bids, asks: book.asks };
    },

    usage: () => client.usage(),
  };
}
