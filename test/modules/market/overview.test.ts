// The market overview: top assets (CoinGecko), stats, and the views computed from Binance 24 h tickers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../../src/platform/clock.ts';
import { assertFresh, assertIssues, startMarket, type MarketHarness } from './market-fixtures.ts';

type Row = Record<string, unknown>;
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

describe('market overview', () => {
  let m: MarketHarness;
  before(async () => {
    // A clock that stands still keeps every cached answer fresh, so upstream calls can be counted.
    m = await startMarket({ clock: fixedClock(new Date()) });
  });
  after(() => m.stop());

  describe('GET /api/v1/market/top', () => {
    it("answers 100 assets in market-cap order by default, from CoinGecko's first page of 250", async () => {
      const { status, body } = await m.get<{ assets: Row[]; count: number } & Row>('/api/v1/market/top');
      assert.equal(status, 200);
      assert.equal(body.count, 100);
      assert.equal(body.vs_currency, 'usd');
      assert.deepEqual(
        body.assets.map((a) => a.rank),
        Array.from({ length: 100 }, (_, i) => i + 1),
      );
      const caps = body.assets.map((a) => a.market_cap as number);
      assert.deepEqual(
        caps,
        [...caps].sort((a, b) => b - a),
      );
      assert.deepEqual(
        { ...body.assets[0], image: undefined, last_updated: undefined, ath_date: undefined },
        {
          rank: 1,
          id: 'bitcoin',
          asset: 'BTC',
          name: 'Bitcoin',
          symbol: 'BTCUSDT',
          base: 'BTC',
          quote: 'USDT',
          image: undefined,
          price: 65000,
          market_cap: 1.2e12,
          volume_24h: 4.8e10,
          high_24h: 66950,
          low_24h: 63050,
          change_24h: body.assets[0]!.change_24h,
          change_percent_24h: 2.5,
          circulating_supply: 18461538,
          total_supply: 18461538,
          max_supply: 21000000,
          ath: 91000,
          ath_date: undefined,
          last_updated: undefined,
        },
      );
      const tether = body.assets.find((a) => a.id === 'tether')!;
      assert.equal(tether.symbol, null, 'no USDT/USDT pair');
      assert.equal(tether.quote, null);
      assertFresh(body, 'coingecko');
      const call = m.coingecko.requests.find((r) => r.path === '/coins/markets')!;
      assert.equal(call.params.get('vs_currency'), 'usd');
      assert.equal(call.params.get('order'), 'market_cap_desc');
      assert.equal(call.params.get('per_page'), '250');
      assert.equal(call.params.get('page'), '1');
      assert.equal(call.headers['x-cg-demo-api-key'], undefined, 'no key configured, none sent');
    });

    it('answers any limit up to 250 from one CoinGecko call, and refuses 0 and 251 (decision 743)', async () => {
      const calls = m.coingecko.countRequests('/coins/markets');
      // An anonymous caller asking every limit once: one page of 250 serves them all while it is fresh.
      for (let limit = 1; limit <= 250; limit += 7) {
        const { body } = await m.get<{ count: number; assets: Row[] }>(`/api/v1/market/top?limit=${limit}`);
        assert.equal(body.count, limit);
        assert.equal(body.assets.at(-1)!.rank, limit);
      }
      assert.equal((await m.get<{ count: number }>('/api/v1/market/top?limit=250')).body.count, 250);
      assert.ok(
        m.coingecko.countRequests('/coins/markets') - calls <= 1,
        `37 limits asked CoinGecko ${m.coingecko.countRequests('/coins/markets') - calls} times`,
      );
      assertIssues(await m.get('/api/v1/market/top?limit=0'), [
        { type: 'greater_than_equal', loc: ['query', 'limit'], ctx: { ge: 1 } },
      ]);
      assertIssues(await m.get('/api/v1/market/top?limit=251'), [
        { type: 'less_than_equal', loc: ['query', 'limit'], ctx: { le: 250 } },
      ]);
    });
  });

  describe('GET /api/v1/market/stats', () => {
    it('answers CoinGecko global figures and Binance aggregates together', async () => {
      const { status, body } = await m.get<{ global: Row; venue: Row } & Row>('/api/v1/market/stats');
      assert.equal(status, 200);
      const caps = sum(m.coingecko.coins.map((c) => c.marketCap));
      assert.equal(body.global.total_market_cap_usd, caps);
      assert.equal(body.global.btc_dominance, (1.2e12 / caps) * 100);
      assert.equal(body.global.active_cryptocurrencies, 13690);
      assert.equal(body.global.updated_at, '2026-01-01T00:00:00.000Z');
      assert.deepEqual(body.venue, {
        pairs_trading: 18,
        pairs_traded_24h: 18,
        total_trades_24h: 7_620_000,
        total_quote_volume_usdt: 3_588_260_000,
        gainers: 11,
        losers: 7,
        unchanged: 0,
        average_change_percent: 0.9444,
      });
      assertFresh(body, 'coingecko+binance');
    });
  });

  describe('GET /api/v1/market/movers', () => {
    it('answers gainers (rises only, largest first) and losers (falls only, largest first)', async () => {
      const { status, body } = await m.get<{ gainers: Row[]; losers: Row[]; universe: number } & Row>(
        '/api/v1/market/movers',
      );
      assert.equal(status, 200);
      assert.deepEqual(
        body.gainers.map((r) => r.symbol),
        ['DOGEUSDT', 'SOLUSDT', 'AVAXUSDT', 'SOLBTC', 'LINKUSDT', 'BTCUSDT', 'BTCUSDC', 'BTCEUR', 'ADAUSDT', 'BNBUSDT'],
      );
      assert.deepEqual(
        body.losers.map((r) => r.symbol),
        ['DOTUSDT', 'ETHBTC', 'XRPUSDT', 'ETHUSDT', 'ETHUSDC', 'BNBBTC', 'LTCUSDT'],
      );
      assert.deepEqual(body.gainers[0], {
        symbol: 'DOGEUSDT',
        base: 'DOGE',
        quote: 'USDT',
        price: 0.12,
        change_percent: 8.7,
        volume: 2e9,
        quote_volume: 2.4e8,
        trades: 600000,
      });
      assert.equal(body.universe, 18);
      assertFresh(body);
      const two = await m.get<{ gainers: Row[]; losers: Row[] }>('/api/v1/market/movers?limit=2');
      assert.equal(two.body.gainers.length, 2);
      assert.equal(two.body.losers.length, 2);
    });

    it('refuses limit outside 1..50', async () => {
      assertIssues(await m.get('/api/v1/market/movers?limit=0'), [
        { type: 'greater_than_equal', loc: ['query', 'limit'], ctx: { ge: 1 } },
      ]);
      assertIssues(await m.get('/api/v1/market/movers?limit=51'), [
        { type: 'less_than_equal', loc: ['query', 'limit'], ctx: { le: 50 } },
      ]);
    });
  });

  describe('GET /api/v1/market/heatmap', () => {
    it('answers USDT pairs as tiles sized by quote volume whose shares add up to 100', async () => {
      const { status, body } = await m.get<{ tiles: Row[]; count: number; total_size: number } & Row>(
        '/api/v1/market/heatmap',
      );
      assert.equal(status, 200);
      assert.equal(body.count, 12, 'every USDT pair of the fake fits in the default 50');
      assert.deepEqual(
        body.tiles.slice(0, 3).map((t) => [t.asset, t.symbol, t.size, t.change_percent]),
        [
          ['ETH', 'ETHUSDT', 8e8, -1.8],
          ['BTC', 'BTCUSDT', 7.8e8, 2.5],
          ['SOL', 'SOLUSDT', 4.5e8, 6.2],
        ],
      );
      assert.equal(body.total_size, 3_237_000_000);
      assert.equal(body.size_metric, 'quote_volume_usdt');
      assert.ok(Math.abs(sum(body.tiles.map((t) => t.share_percent as number)) - 100) < 0.001);
      assertFresh(body);
      assert.equal((await m.get<{ count: number }>('/api/v1/market/heatmap?limit=10')).body.count, 10);
    });

    it('refuses limit outside 10..100', async () => {
      assertIssues(await m.get('/api/v1/market/heatmap?limit=9'), [
        { type: 'greater_than_equal', loc: ['query', 'limit'], ctx: { ge: 10 } },
      ]);
      assertIssues(await m.get('/api/v1/market/heatmap?limit=101'), [
        { type: 'less_than_equal', loc: ['query', 'limit'], ctx: { le: 100 } },
      ]);
    });
  });

  describe('GET /api/v1/market/volume-distribution', () => {
    it("answers each asset's share of the USDT-valued quote volume, and leaves unpriced pairs out", async () => {
      const { status, body } = await m.get<{ assets: Row[]; quotes: Row[]; other: Row } & Row>(
        '/api/v1/market/volume-distribution',
      );
      assert.equal(status, 200);
      // ETH: 800M on ETHUSDT plus 4,410 BTC on ETHBTC at 65,000 USDT.
      assert.deepEqual(body.assets[0], {
        asset: 'ETH',
        quote_volume_usdt: 1_086_650_000,
        share_percent: 30.2835,
        pairs: 2,
      });
      assert.equal(body.total_quote_volume_usdt, 3_588_260_000);
      assert.equal(body.unpriced_pairs, 3, 'BTCUSDC, ETHUSDC and BTCEUR have no USDC/EUR price in USDT');
      assert.deepEqual(
        body.quotes.map((q) => q.quote),
        ['USDT', 'BTC'],
      );
      assert.deepEqual(body.other, { quote_volume_usdt: 0, share_percent: 0, pairs: 0, assets: 0 });
      assert.ok(Math.abs(sum(body.assets.map((a) => a.share_percent as number)) - 100) < 0.001);
      assert.equal(body.reference_quote, 'USDT');
      assertFresh(body);
    });
  });

  describe('GET /api/v1/market/activity', () => {
    it('answers trade counts and volume, the most traded pairs and trades by quote asset', async () => {
      const { status, body } = await m.get<{ most_traded: Row[]; by_quote: Row[] } & Row>('/api/v1/market/activity');
      assert.equal(status, 200);
      assert.equal(body.total_trades_24h, sum(m.binance.symbols.map((s) => s.count)));
      assert.equal(body.active_pairs, 18);
      assert.equal(body.total_quote_volume_usdt, 3_588_260_000);
      assert.deepEqual(
        body.most_traded.slice(0, 3).map((p) => [p.symbol, p.trades]),
        [
          ['BTCUSDT', 1_800_000],
          ['ETHUSDT', 1_200_000],
          ['SOLUSDT', 900_000],
        ],
      );
      assert.deepEqual(
        body.by_quote.map((q) => [q.quote, q.trades]),
        [
          ['USDT', 6_520_000],
          ['USDC', 600_000],
          ['BTC', 450_000],
          ['EUR', 50_000],
        ],
      );
      assert.equal(body.by_quote[0]!.share_percent, 85.5643);
      assertFresh(body);
    });
  });

  describe('GET /api/v1/market/trending', () => {
    it('ranks pairs by 24 h trades × |24 h change %|', async () => {
      const { status, body } = await m.get<{ pairs: Row[]; count: number; rule: string } & Row>(
        '/api/v1/market/trending',
      );
      assert.equal(status, 200);
      const expected = m.binance.symbols
        .map((s) => ({ symbol: s.symbol, score: s.count * Math.abs(s.changePercent) }))
        .sort((a, b) => b.score - a.score || a.symbol.localeCompare(b.symbol));
      assert.equal(body.count, 18);
      assert.deepEqual(
        body.pairs.map((p) => p.symbol),
        expected.map((e) => e.symbol),
      );
      assert.deepEqual(
        body.pairs.slice(0, 3).map((p) => [p.rank, p.symbol, p.score]),
        [
          [1, 'SOLUSDT', 5_580_000],
          [2, 'DOGEUSDT', 5_220_000],
          [3, 'BTCUSDT', 4_500_000],
        ],
      );
      assert.match(body.rule, /trades × \|24 h price change %\|/);
      assertFresh(body);
      assert.equal((await m.get<{ count: number }>('/api/v1/market/trending?limit=5')).body.count, 5);
    });

    it('refuses limit outside 5..50', async () => {
      assertIssues(await m.get('/api/v1/market/trending?limit=4'), [
        { type: 'greater_than_equal', loc: ['query', 'limit'], ctx: { ge: 5 } },
      ]);
      assertIssues(await m.get('/api/v1/market/trending?limit=51'), [
        { type: 'less_than_equal', loc: ['query', 'limit'], ctx: { le: 50 } },
      ]);
    });
  });

  it('answers all the ticker views above from one 24 h ticker call', () => {
    assert.equal(m.binance.countRequests('/api/v3/ticker/24hr'), 1);
  });
});

describe('CoinGecko API key', () => {
  it('sends a configured demo key in x-cg-demo-api-key', async () => {
    const m = await startMarket({
      coingecko: { apiKey: 'CG-demo-key-123', plan: 'demo' },
      env: { COINGECKO_API_KEY: 'CG-demo-key-123' },
    });
    try {
      const { status } = await m.get('/api/v1/market/top?limit=5');
      assert.equal(status, 200);
      assert.equal(m.coingecko.requests[0]!.headers['x-cg-demo-api-key'], 'CG-demo-key-123');
      assert.equal(m.coingecko.requests[0]!.headers['x-cg-pro-api-key'], undefined);
    } finally {
      await m.stop();
    }
  });

  it('sends a pro key in x-cg-pro-api-key when COINGECKO_API_PLAN=pro', async () => {
    const m = await startMarket({
      coingecko: { apiKey: 'CG-pro-key-456', plan: 'pro' },
      env: { COINGECKO_API_KEY: 'CG-pro-key-456', COINGECKO_API_PLAN: 'pro' },
    });
    try {
      assert.equal((await m.get('/api/v1/market/stats')).status, 200);
      assert.equal(m.coingecko.requests[0]!.headers['x-cg-pro-api-key'], 'CG-pro-key-456');
    } finally {
      await m.stop();
    }
  });

  it('answers 502 when CoinGecko refuses the key, without revealing it', async () => {
    const m = await startMarket({
      coingecko: { apiKey: 'the-right-key', plan: 'demo' },
      env: { COINGECKO_API_KEY: 'a-wrong-key-789', LOG_LEVEL: 'debug' },
    });
    try {
      const { status, body } = await m.get('/api/v1/market/top');
      assert.equal(status, 502);
      assert.deepEqual(body, { detail: 'CoinGecko answered HTTP 401: Invalid API Key (code 10010)' });
      assert.ok(!m.logText().includes('a-wrong-key-789'), 'the key never reaches the log');
    } finally {
      await m.stop();
    }
  });
});
