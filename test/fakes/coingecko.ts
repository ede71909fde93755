// A loopback CoinGecko API v3 server (CoinGecko's API v3 documentation): /ping, /coins/markets (vs_currency required,
// order, per_page 1..250, page) and /global, with deterministic numbers. When a key is configured it
// is checked in `x-cg-demo-api-key` or `x-cg-pro-api-key` (or the matching query parameter) and a
// missing or wrong key is refused as CoinGecko does. Failures (429, 5xx) and slow answers on demand.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createFakeServer } from './loopback-server.ts';
import type { AddressInfo } from 'node:net';

interface CoinGeckoRequest {
  path: string;
  params: URLSearchParams;
  headers: IncomingMessage['headers'];
}

export interface CoinGeckoFakeOptions {
  /** Require this key; `plan` says in which header. Unset: keyless public access. */
  apiKey?: string;
  plan?: 'demo' | 'pro';
}

interface Coin {
  id: string;
  symbol: string;
  name: string;
  price: number;
  marketCap: number;
  volume: number;
  change: number;
  supply: number;
  maxSupply: number | null;
}

const KNOWN: [string, string, string, number, number, number | null][] = [
  // id, symbol, name, price, 24h change %, max supply
  ['bitcoin', 'btc', 'Bitcoin', 65000, 2.5, 21_000_000],
  ['ethereum', 'eth', 'Ethereum', 3200, -1.8, null],
  ['tether', 'usdt', 'Tether', 1, 0.01, null],
  ['binancecoin', 'bnb', 'BNB', 580, 0.9, 200_000_000],
  ['solana', 'sol', 'Solana', 150, 6.2, null],
  ['usd-coin', 'usdc', 'USDC', 1, -0.01, null],
  ['ripple', 'xrp', 'XRP', 0.52, -3.4, 100_000_000_000],
  ['dogecoin', 'doge', 'Dogecoin', 0.12, 8.7, null],
  ['cardano', 'ada', 'Cardano', 0.45, 1.1, 45_000_000_000],
  ['tron', 'trx', 'TRON', 0.12, 0.2, null],
  ['avalanche-2', 'avax', 'Avalanche', 30, 4.4, 720_000_000],
  ['chainlink', 'link', 'Chainlink', 14, 3.3, 1_000_000_000],
];

/** 300 coins, market caps strictly decreasing: the first twelve real names, then generated ones. */
function coins(): Coin[] {
  const list: Coin[] = [];
  for (let i = 0; i < 300; i++) {
    const known = KNOWN[i];
    const marketCap = Math.round(1.2e12 / (i + 1) ** 1.6);
    const [id, symbol, name, price, change, maxSupply] = known ?? [
      `coin-${String(i + 1).padStart(3, '0')}`,
      `c${String(i + 1).padStart(3, '0')}`,
      `Coin ${i + 1}`,
      Math.round((50 / (i + 1)) * 1e6) / 1e6,
      Math.round(Math.sin(i) * 800) / 100,
      null,
    ];
    list.push({
      id,
      symbol,
      name,
      price,
      marketCap,
      volume: Math.round(marketCap * 0.04),
      change,
      supply: Math.round(marketCap / price),
      maxSupply,
    });
  }
  return list;
}

const ORDERS: Record<string, (a: Coin, b: Coin) => number> = {
  market_cap_desc: (a, b) => b.marketCap - a.marketCap,
  market_cap_asc: (a, b) => a.marketCap - b.marketCap,
  volume_desc: (a, b) => b.volume - a.volume,
  volume_asc: (a, b) => a.volume - b.volume,
  id_asc: (a, b) => a.id.localeCompare(b.id),
  id_desc: (a, b) => b.id.localeCompare(a.id),
};

const UPDATED = '2026-01-01T00:00:00.000Z';

function marketRow(coin: Coin, rank: number): Record<string, unknown> {
  const change24h = coin.price - coin.price / (1 + coin.change / 100);
  return {
    id: coin.id,
    symbol: coin.symbol,
    name: coin.name,
    image: `https://coin-images.example/${coin.id}/large.png`,
    current_price: coin.price,
    market_cap: coin.marketCap,
    market_cap_rank: rank,
    fully_diluted_valuation: coin.maxSupply ? Math.round(coin.maxSupply * coin.price) : null,
    total_volume: coin.volume,
    high_24h: Math.round(coin.price * 1.03 * 1e6) / 1e6,
    low_24h: Math.round(coin.price * 0.97 * 1e6) / 1e6,
    price_change_24h: change24h,
    price_change_percentage_24h: coin.change,
    market_cap_change_24h: Math.round(coin.marketCap * (coin.change / 100)),
    market_cap_change_percentage_24h: coin.change,
    circulating_supply: coin.supply,
    total_supply: coin.supply,
    max_supply: coin.maxSupply,
    ath: coin.price * 1.4,
    ath_change_percentage: -28.57,
    ath_date: '2024-03-14T07:10:36.635Z',
    atl: coin.price / 50,
    atl_change_percentage: 4900,
    atl_date: '2015-10-20T00:00:00.000Z',
    roi: null,
    last_updated: UPDATED,
  };
}

export class CoinGeckoFake {
  readonly requests: CoinGeckoRequest[] = [];
  readonly coins = coins();
  url = '';
  private server?: Server;
  private failures: {
    status: number;
    body: unknown;
    headers: Record<string, string>;
    pathPrefix?: string;
    remaining: number;
  }[] = [];
  private delays: { ms: number; pathPrefix?: string; remaining: number }[] = [];

  constructor(private readonly options: CoinGeckoFakeOptions = {}) {}

  /** The next `times` matching requests answer with this status (429 carries CoinGecko's body by default). */
  fail(
    status: number,
    body?: unknown,
    options: { times?: number; pathPrefix?: string; retryAfter?: number } = {},
  ): this {
    const headers: Record<string, string> = {};
    if (options.retryAfter !== undefined) headers['retry-after'] = String(options.retryAfter);
    const fallback =
      status === 429
        ? {
            status: {
              error_code: 429,
              error_message:
                "You've exceeded the Rate Limit. Please visit https://www.coingecko.com/en/api/pricing to " +
                'subscribe to our API plans for higher rate limits.',
            },
          }
        : { error: 'Internal Server Error' };
    this.failures.push({
      status,
      body: body ?? fallback,
      headers,
      pathPrefix: options.pathPrefix,
      remaining: options.times ?? 1,
    });
    return this;
  }

  /** The next `times` matching requests are answered only after `ms`. */
  delay(ms: number, options: { times?: number; pathPrefix?: string } = {}): this {
    this.delays.push({ ms, pathPrefix: options.pathPrefix, remaining: options.times ?? 1 });
    return this;
  }

  countRequests(path: string): number {
    return this.requests.filter((r) => r.path === path).length;
  }

  async start(): Promise<this> {
    this.server = createFakeServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/v3`;
    return this;
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private take<T extends { pathPrefix?: string; remaining: number }>(list: T[], path: string): T | undefined {
    const found = list.find((f) => f.remaining > 0 && (!f.pathPrefix || path.startsWith(f.pathPrefix)));
    if (found) found.remaining -= 1;
    return found;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname.replace(/^\/api\/v3/, '');
    const request: CoinGeckoRequest = { path, params: url.searchParams, headers: req.headers };
    this.requests.push(request);
    const pause = this.take(this.delays, path);
    if (pause) await new Promise((r) => setTimeout(r, pause.ms).unref());
    const reply = this.dispatch(request);
    if (res.destroyed) return;
    res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...reply.headers });
    res.end(JSON.stringify(reply.body));
  }

  private dispatch(request: CoinGeckoRequest): { status: number; body: unknown; headers?: Record<string, string> } {
    const refusal = this.checkKey(request);
    if (refusal) return refusal;
    const failure = this.take(this.failures, request.path);
    if (failure) return failure;
    switch (request.path) {
      case '/ping':
        return { status: 200, body: { gecko_says: '(V3) To the Moon!' } };
      case '/coins/markets':
        return this.markets(request.params);
      case '/global':
        return { status: 200, body: this.global() };
      default:
        return { status: 404, body: { error: 'Incorrect path. Please check https://www.coingecko.com/api/' } };
    }
  }

  private checkKey(request: CoinGeckoRequest): { status: number; body: unknown } | undefined {
    const { apiKey, plan = 'demo' } = this.options;
    if (!apiKey) return undefined;
    const given = request.headers[`x-cg-${plan}-api-key`] ?? request.params.get(`x_cg_${plan}_api_key`) ?? undefined;
    if (given === undefined)
      return { status: 401, body: { status: { error_code: 10002, error_message: 'API Key Missing' } } };
    if (given !== apiKey)
      return { status: 401, body: { status: { error_code: 10010, error_message: 'Invalid API Key' } } };
    return undefined;
  }

  private markets(params: URLSearchParams): { status: number; body: unknown } {
    const currency = params.get('vs_currency');
    if (!currency) return { status: 400, body: { error: 'Missing parameter vs_currency' } };
    if (currency !== 'usd') return { status: 400, body: { error: 'invalid vs_currency' } };
    const order = ORDERS[params.get('order') ?? 'market_cap_desc'];
    if (!order) return { status: 400, body: { error: 'invalid order' } };
    const perPage = Number(params.get('per_page') ?? 100);
    const page = Number(params.get('page') ?? 1);
    if (!Number.isInteger(perPage) || perPage < 1 || perPage > 250)
      return { status: 400, body: { error: 'invalid per_page' } };
    if (!Number.isInteger(page) || page < 1) return { status: 400, body: { error: 'invalid page' } };
    const ranked = [...this.coins].sort(ORDERS.market_cap_desc).map((coin, i) => ({ coin, rank: i + 1 }));
    const rows = ranked.sort((a, b) => order(a.coin, b.coin)).slice((page - 1) * perPage, page * perPage);
    return { status: 200, body: rows.map(({ coin, rank }) => marketRow(coin, rank)) };
  }

  private global(): Record<string, unknown> {
    const totalCap = this.coins.reduce((sum, c) => sum + c.marketCap, 0);
    const totalVolume = this.coins.reduce((sum, c) => sum + c.volume, 0);
    const share = (symbol: string) => {
      const coin = this.coins.find((c) => c.symbol === symbol)!;
      return (coin.marketCap / totalCap) * 100;
    };
    return {
      data: {
        active_cryptocurrencies: 13_690,
        upcoming_icos: 0,
        ongoing_icos: 49,
        ended_icos: 3376,
        markets: 1046,
        total_market_cap: { usd: totalCap, eur: totalCap * 0.92, btc: totalCap / 65000 },
        total_volume: { usd: totalVolume, eur: totalVolume * 0.92, btc: totalVolume / 65000 },
        market_cap_percentage: {
          btc: share('btc'),
          eth: share('eth'),
          usdt: share('usdt'),
          bnb: share('bnb'),
          sol: share('sol'),
        },
        market_cap_change_percentage_24h_usd: 1.72,
        updated_at: Math.floor(Date.parse(UPDATED) / 1000),
      },
    };
  }
}

export async function startCoinGeckoFake(options: CoinGeckoFakeOptions = {}): Promise<CoinGeckoFake> {
  return new CoinGeckoFake(options).start();
}
