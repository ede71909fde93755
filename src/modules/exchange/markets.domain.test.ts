// Symbol resolution, quote and route ranking over a venue's markets.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { VenueMarket, VenueTicker } from './adapters/venue-gateway.ts';
import {
  largestFirst,
  quoteCurrencies,
  rankQuotes,
  rankRoutes,
  resolveSymbol,
  symbolsForHoldings,
} from './markets.domain.ts';

const market = (base: string, quote: string, fields: Partial<VenueMarket> = {}): VenueMarket => ({
  symbol: `${base}/${quote}`,
  id: `${base}${quote}`,
  base,
  quote,
  active: true,
  minAmount: null,
  maxAmount: null,
  minCost: null,
  pricePrecision: null,
  amountPrecision: null,
  maker: 0.001,
  taker: 0.001,
  ...fields,
});

const ticker = (symbol: string, fields: Partial<VenueTicker> = {}): VenueTicker => ({
  symbol,
  last: null,
  bid: null,
  ask: null,
  high: null,
  low: null,
  open: null,
  close: null,
  change: null,
  percentage: null,
  baseVolume: null,
  quoteVolume: null,
  vwap: null,
  timestamp: null,
  ...fields,
});

const MARKETS = [
  market('BTC', 'USDT'),
  market('ETH', 'BTC'),
  market('BTC', 'USDC'),
  market('ETH', 'USDT'),
  market('SOL', 'USDT'),
];

describe('resolveSymbol', () => {
  it('accepts BTCUSDT, BTC/USDT, btc-usdt and btc_usdt alike', () => {
    for (const input of ['BTCUSDT', 'BTC/USDT', 'btc-usdt', 'btc_usdt', ' btcusdt ']) {
      assert.equal(resolveSymbol(MARKETS, input)?.symbol, 'BTC/USDT', input);
    }
  });

  it('is undefined for pairs the venue does not list', () => {
    assert.equal(resolveSymbol(MARKETS, 'BTCEUR'), undefined);
    assert.equal(resolveSymbol(MARKETS, 'USDT/BTC'), undefined);
  });
});

describe('symbolsForHoldings', () => {
  const held = (...pairs: [string, string][]) => pairs.map(([currency, total]) => ({ currency, total }));

  it('pairs each held currency with every quote the venue lists, most used quotes known first', () => {
    assert.deepEqual(quoteCurrencies(MARKETS), ['USDT', 'BTC', 'USDC']);
    assert.deepEqual(symbolsForHoldings(MARKETS, held(['ETH', '3'], ['BTC', '2'], ['USDT', '1']), 10), [
      'ETH/BTC',
      'ETH/USDT',
      'BTC/USDT',
      'BTC/USDC',
    ]);
  });

  it('takes the largest holdings first, whatever their place in the alphabet, and stops at the cap', () => {
    const holdings = held(['BTC', '0.5'], ['ETH', '2'], ['SOL', '10.25']);
    assert.deepEqual(symbolsForHoldings(MARKETS, holdings, 3), ['SOL/USDT', 'ETH/BTC', 'ETH/USDT']);
  });

  it('compares amounts as decimals, not as strings, and breaks ties alphabetically', () => {
    assert.deepEqual(
      largestFirst(held(['AAA', '9.5'], ['ZZZ', '10.000000000000000001'], ['MMM', '9.50'], ['BBB', '0.00000001'])),
      ['ZZZ', 'AAA', 'MMM', 'BBB'],
    );
  });
});

describe('rankRoutes', () => {
  const candidates = [
    {
      exchange: 'a',
      market: market('BTC', 'USDT', { taker: 0.002, minAmount: 0.0001, minCost: 10 }),
      ticker: ticker('BTC/USDT', { ask: 100, last: 99 }),
    },
    {
      exchange: 'b',
      market: market('BTC', 'USDT', { taker: 0.001, minAmount: 0.001, minCost: 5 }),
      ticker: ticker('BTC/USDT', { ask: 100.05 }),
    },
    { exchange: 'c', market: market('BTC', 'USDT', { taker: null }), ticker: ticker('BTC/USDT', { last: 101 }) },
    { exchange: 'd', market: market('BTC', 'USDT'), ticker: ticker('BTC/USDT') },
  ];

  it('ranks by the ask plus the taker fee, falls back to the last price, and excludes venues without a price', () => {
    const { routes, excluded } = rankRoutes(candidates, {});
    assert.deepEqual(
      routes.map((r) => [r.exchange, r.rank]),
      [
        ['b', 1],
        ['a', 2],
        ['c', 3],
      ],
    );
    assert.equal(routes[0]!.effective_price, 100.05 * 1.001);
    assert.equal(routes[1]!.price, 100);
    assert.equal(routes[2]!.taker_fee, 0);
    assert.deepEqual(excluded, [{ exchange: 'd', symbol: 'BTC/USDT', reason: 'the venue reported no price' }]);
  });

  it('drops venues whose min_amount exceeds size or whose min_cost exceeds quote_size', () => {
    const bySize = rankRoutes(candidates.slice(0, 2), { size: 0.0005 });
    assert.deepEqual(
      bySize.routes.map((r) => r.exchange),
      ['a'],
    );
    assert.equal(bySize.excluded[0]!.reason, 'min_amount 0.001 exceeds size 0.0005');
    const byNotional = rankRoutes(candidates.slice(0, 2), { quoteSize: 7 });
    assert.deepEqual(
      byNotional.routes.map((r) => r.exchange),
      ['b'],
    );
    assert.equal(byNotional.excluded[0]!.reason, 'min_cost 10 exceeds quote_size 7');
  });
});

describe('rankQuotes', () => {
  it('orders active pairs by base volume (quote volume in one currency), inactive ones last', () => {
    const markets = [
      market('ETH', 'BTC'),
      market('ETH', 'USDT'),
      market('ETH', 'EUR', { active: false }),
      market('ETH', 'USDC'),
    ];
    const tickers = [
      ticker('ETH/BTC', { baseVolume: 90_000, quoteVolume: 4_410 }),
      ticker('ETH/USDT', { baseVolume: 250_000, quoteVolume: 800_000_000 }),
      ticker('ETH/EUR', { baseVolume: 1_000_000, quoteVolume: 3_000_000_000 }),
    ];
    assert.deepEqual(
      rankQuotes(markets, tickers).map((q) => q.quote),
      ['USDT', 'BTC', 'USDC', 'EUR'],
    );
  });
});
