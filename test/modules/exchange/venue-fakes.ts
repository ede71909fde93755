// The venues of the exchange tests: global Binance and binance.us as loopback fakes (with their SAPI
// endpoints), every other venue pointed at a loopback port nobody listens on, so it fails at once.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startBinanceFake, type BinanceFake, type FakeAccount } from '../../fakes/binance.ts';
import { binanceTrade } from '../../fakes/binance-shapes.ts';
import { marketSymbols, type FakeSymbol } from '../../fakes/binance-market-data.ts';
import { registerBinanceSapi, type SapiControl } from '../../fakes/binance-sapi.ts';
import { closedPort } from '../../helpers/ports.ts';

export const OTHER_VENUES = ['coinbase', 'kraken', 'okx', 'bybit'] as const;

export interface VenueFakes {
  binance: BinanceFake;
  binanceus: BinanceFake;
  sapi: { binance: SapiControl; binanceus: SapiControl };
  /** Where the other venues point: a closed loopback port. */
  closedUrl: string;
  env(overrides?: Record<string, string>): Record<string, string>;
  close(): Promise<void>;
}

/** A LINK/USDT-like market under another base, for tests that need more markets than the fake lists. */
export function extraMarket(base: string, quote = 'USDT'): FakeSymbol {
  const template = marketSymbols('global').find((s) => s.symbol === 'LINKUSDT')!;
  const symbol = `${base}${quote}`;
  return { ...template, symbol, base, quote, info: { ...template.info, symbol, baseAsset: base, quoteAsset: quote } };
}

export async function startVenueFakes(options: { extraBinanceMarkets?: FakeSymbol[] } = {}): Promise<VenueFakes> {
  const binance = await startBinanceFake({
    symbols: [...marketSymbols('global'), ...(options.extraBinanceMarkets ?? [])],
  });
  // binance.us sells BTC a little cheaper than global Binance, so routes have an order.
  const usSymbols = marketSymbols('us').map((s) => (s.symbol === 'BTCUSDT' ? { ...s, price: '64900.00' } : s));
  const binanceus = await startBinanceFake({ variant: 'us', symbols: usSymbols });
  const sapi = { binance: registerBinanceSapi(binance), binanceus: registerBinanceSapi(binanceus) };
  // Connecting to a port that was free a moment ago is refused at once (ECONNREFUSED).
  const closed = `http://127.0.0.1:${await closedPort()}`;
  return {
    binance,
    binanceus,
    sapi,
    closedUrl: closed,
    env(overrides = {}) {
      const others = Object.fromEntries(OTHER_VENUES.map((venue) => [venue, closed]));
      return {
        BINANCE_API_URL: binance.url,
        BINANCEUS_API_URL: binanceus.url,
        EXCHANGE_API_URLS: JSON.stringify(others),
        EXCHANGE_RATE_LIMIT: 'false',
        EXCHANGE_TIMEOUT_MS: '2000',
        ...overrides,
      };
    },
    async close() {
      await binance.close();
      await binanceus.close();
    },
  };
}

/** A server that accepts connections and never answers: a venue that hangs. */
export async function startSilentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(() => {
    // Never respond.
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let counter = 0;

/** A fresh account on a fake with a BTC/ETH/USDT holding and a couple of BTCUSDT trades. */
export function addAccount(fake: BinanceFake, fields: Partial<FakeAccount> = {}): FakeAccount {
  counter += 1;
  const suffix = `${process.pid}${counter}`.padStart(8, '0');
  return fake.addAccount({
    apiKey: `vKey${suffix}AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghijklmnop`,
    secret: `vSecret${suffix}ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210zyxwvutsrq`,
    balances: [
      { asset: 'BTC', free: '0.12345678', locked: '0.10000000' },
      { asset: 'ETH', free: '1.50000000', locked: '0.00000000' },
      { asset: 'USDT', free: '1000.10000000', locked: '0.00000000' },
      { asset: 'XRP', free: '0.00000000', locked: '0.00000000' },
    ],
    trades: {
      BTCUSDT: [
        binanceTrade({
          symbol: 'BTCUSDT',
          id: 101,
          price: '65000.10',
          qty: '0.01000000',
          isBuyer: true,
          time: Date.UTC(2026, 0, 2, 10),
        }),
        binanceTrade({
          symbol: 'BTCUSDT',
          id: 102,
          price: '65100.20',
          qty: '0.00500000',
          isBuyer: false,
          time: Date.UTC(2026, 0, 3, 10),
          commission: '0.32550100',
          commissionAsset: 'USDT',
        }),
      ],
    },
    ...fields,
  });
}
