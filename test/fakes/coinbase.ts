// A loopback Coinbase Advanced Trade server (PROTOCOLS B9): `/api/v3/brokerage/*` plus the few
// `/v2/*` reads ccxt makes when it loads markets. Private calls carry `Authorization: Bearer <JWT>`,
// ES256 over the key's P-256 private key: header `kid` = key name and a nonce; claims `sub` = key
// name, `iss` (`cdp`, or `coinbase-cloud` as ccxt signs), `nbf`, `exp` at most 120 s later, `uri` =
// "<METHOD> api.coinbase.com<path>" (Coinbase's own host, even through a proxy). Any fault is 401 "Unauthorized" (ccxt AuthenticationError). Private calls
// are limited per key and second (30); above that 429 with Coinbase's `errors` body.
// orders/historical/fills answers newest first, `limit` (≤ 1000), `cursor`, `start_sequence_timestamp`;
// orders/historical/batch pages alike (coinbase-orders.ts).
import { createPublicKey, generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { COINBASE_FILLS, coinbaseOrders } from './coinbase-orders.ts';
import {
  crossResting,
  fillCost,
  newestFirst,
  SEED_MARKETS,
  startLoopback,
  type Loopback,
  type LoopbackReply,
  type LoopbackRequest,
  type VenueAccount,
} from './venue-loopback.ts';

export interface CoinbaseFake extends Loopback {
  addAccount(account: VenueAccount): VenueAccount;
  /** Private requests allowed per key and second. */
  limits: { privatePerSecond: number };
  /** Answers of the venue's own limit this fake gave (injected failures not counted). */
  stats: { limitAnswers: number };
  /**
   * The last price of base/quote went through `price`: resting limits it crosses fill (each at most
   * `upTo`, when given); answers how many.
   */
  cross(base: string, quote: string, price: string, upTo?: string): number;
}

/** A CDP key: its name and its EC private key in PEM, as Coinbase hands them out. */
export function coinbaseKey(name: string): { apiKey: string; secret: string } {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return {
    apiKey: `organizations/org-fake/apiKeys/${name}`,
    secret: privateKey.export({ type: 'sec1', format: 'pem' }) as string,
  };
}

const UNAUTHORIZED: LoopbackReply = { status: 401, body: 'Unauthorized\n', headers: { 'content-type': 'text/plain' } };
const productId = (m: { base: string; quote: string }) => `${m.base}-${m.quote}`;
const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;

export async function startCoinbaseFake(): Promise<CoinbaseFake> {
  const accounts = new Map<string, { account: VenueAccount; publicKey: KeyObject }>();
  const seconds = new Map<string, { second: number; count: number }>();
  const limits = { privatePerSecond: 30 };
  const stats = { limitAnswers: 0 };

  function authenticate(request: LoopbackRequest): VenueAccount | LoopbackReply {
    const token = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
    const parts = token?.split('.');
    if (parts?.length !== 3) return UNAUTHORIZED;
    let header: Record<string, unknown>;
    let claims: Record<string, unknown>;
    try {
      header = decode(parts[0]!);
      claims = decode(parts[1]!);
    } catch {
      return UNAUTHORIZED;
    }
    const entry = accounts.get(String(header.kid));
    if (!entry || header.alg !== 'ES256' || typeof header.nonce !== 'string') return UNAUTHORIZED;
    const signed = verify(
      'sha256',
      Buffer.from(`${parts[0]}.${parts[1]}`),
      { key: entry.publicKey, dsaEncoding: 'ieee-p1363' },
      Buffer.from(parts[2]!, 'base64url'),
    );
    if (!signed) return UNAUTHORIZED;
    const now = Math.floor(Date.now() / 1000);
    const nbf = Number(claims.nbf);
    const exp = Number(claims.exp);
    if (claims.sub !== header.kid || !['cdp', 'coinbase-cloud'].includes(String(claims.iss))) return UNAUTHORIZED;
    if (!(nbf <= now + 5 && now <= exp && exp - nbf <= 120)) return UNAUTHORIZED;
    // Coinbase checks the URI against its own host, whatever proxy carried the request.
    if (claims.uri !== `${request.method} api.coinbase.com${request.path}`) return UNAUTHORIZED;
    return entry.account;
  }

  function overLimit(account: VenueAccount): boolean {
    const second = Math.floor(Date.now() / 1000);
    const state = seconds.get(account.apiKey);
    const count = state && state.second === second ? state.count + 1 : 1;
    seconds.set(account.apiKey, { second, count });
    return count > limits.privatePerSecond;
  }

  function publicRoute(request: LoopbackRequest): LoopbackReply | undefined {
    const { path, query } = request;
    if (path === '/v2/currencies') return { body: { data: [{ id: 'USD', name: 'US Dollar', min_size: '0.01' }] } };
    if (path === '/v2/currencies/crypto') {
      const codes = ['BTC', 'ETH', 'USDT'];
      return {
        body: {
          data: codes.map((code, i) => ({
            asset_id: `asset-${code}`,
            code,
            name: code,
            color: '#000000',
            sort_index: i,
            exponent: 8,
            type: 'crypto',
            address_regex: '.*',
          })),
        },
      };
    }
    if (path === '/v2/exchange-rates')
      return { body: { data: { currency: 'USD', rates: { BTC: '0.0000154', ETH: '0.0003125', USDT: '1' } } } };
    if (path === '/v2/time')
      return { body: { data: { iso: new Date().toISOString(), epoch: Math.floor(Date.now() / 1000) } } };
    if (path === '/api/v3/brokerage/time') {
      const now = Date.now();
      return {
        body: {
          iso: new Date(now).toISOString(),
          epochSeconds: String(Math.floor(now / 1000)),
          epochMillis: String(now),
        },
      };
    }
    if (path === '/api/v3/brokerage/market/products') {
      if (query.get('product_type') === 'FUTURE') return { body: { products: [], num_products: 0 } };
      const products = SEED_MARKETS.map((m) => ({
        product_id: productId(m),
        price: m.last,
        price_percentage_change_24h: '1.01',
        volume_24h: '250.75',
        volume_percentage_change_24h: '0',
        base_increment: '0.00000001',
        quote_increment: m.quote === 'BTC' ? '0.00001' : '0.01',
        quote_min_size: '1',
        quote_max_size: '10000000',
        base_min_size: '0.00000001',
        base_max_size: '3400',
        base_name: m.base,
        quote_name: m.quote,
        watched: false,
        is_disabled: false,
        new: false,
        status: 'online',
        cancel_only: false,
        limit_only: false,
        post_only: false,
        trading_disabled: false,
        auction_mode: false,
        product_type: 'SPOT',
        quote_currency_id: m.quote,
        base_currency_id: m.base,
        mid_market_price: '',
        alias: '',
        alias_to: [],
        base_display_symbol: m.base,
        quote_display_symbol: m.quote,
        view_only: false,
        price_increment: m.quote === 'BTC' ? '0.00001' : '0.01',
        display_name: `${m.base}-${m.quote}`,
        product_venue: 'CBE',
      }));
      return { body: { products, num_products: products.length } };
    }
    const tickerOf = /^\/api\/v3\/brokerage\/market\/products\/([A-Z0-9]+-[A-Z0-9]+)\/ticker$/.exec(path);
    if (tickerOf) {
      const market = SEED_MARKETS.find((m) => productId(m) === tickerOf[1]);
      if (!market)
        return {
          status: 404,
          body: { error: 'NOT_FOUND', error_details: 'ProductID is invalid', message: 'ProductID is invalid' },
        };
      const trade = {
        trade_id: '1',
        product_id: tickerOf[1],
        price: market.last,
        size: '0.01',
        time: new Date().toISOString(),
        side: 'BUY',
        bid: '',
        ask: '',
        exchange: 'coinbase',
      };
      return { body: { trades: [trade], best_bid: market.bid, best_ask: market.ask } };
    }
    return undefined;
  }

  function privateRoute(request: LoopbackRequest, account: VenueAccount): LoopbackReply {
    const { path, query } = request;
    if (path === '/api/v3/brokerage/accounts') {
      const list = account.balances.map((b) => ({
        uuid: `acct-${b.currency}`,
        name: `${b.currency} Wallet`,
        currency: b.currency,
        available_balance: { value: b.free, currency: b.currency },
        default: false,
        active: true,
        created_at: '2025-01-01T00:00:00Z',
        updated_at: '2025-01-01T00:00:00Z',
        deleted_at: null,
        type: 'ACCOUNT_TYPE_CRYPTO',
        ready: true,
        hold: { value: b.locked, currency: b.currency },
        retail_portfolio_id: 'portfolio-1',
      }));
      return { body: { accounts: list, has_next: false, cursor: '', size: list.length } };
    }
    if (path === '/api/v3/brokerage/transaction_summary')
      return {
        body: {
          total_volume: 0,
          total_fees: 0,
          fee_tier: {
            pricing_tier: 'Advanced 1',
            usd_from: '0',
            usd_to: '1000',
            taker_fee_rate: '0.012',
            maker_fee_rate: '0.006',
          },
        },
      };
    if (path === '/api/v3/brokerage/orders/historical/fills') {
      const products = query.getAll('product_id');
      const orderIds = [...query.getAll('order_id'), ...query.getAll('order_ids')];
      const start = query.get('start_sequence_timestamp');
      const end = query.get('end_sequence_timestamp');
      const limit = Math.min(1000, Number(query.get('limit') ?? 100));
      const offset = query.get('cursor') ? Number(Buffer.from(query.get('cursor')!, 'base64url').toString()) : 0;
      const rows = newestFirst(account.fills).filter(
        (f) =>
          (products.length === 0 || products.includes(productId(f))) &&
          (orderIds.length === 0 || orderIds.includes(f.orderId)) &&
          (start === null || f.time >= Date.parse(start)) &&
          (end === null || f.time <= Date.parse(end)),
      );
      const page = rows.slice(offset, offset + limit);
      const more = offset + limit < rows.length;
      return {
        body: {
          fills: page.map((f) => ({
            entry_id: `entry-${f.id}`,
            trade_id: f.id,
            order_id: f.orderId,
            trade_time: new Date(f.time).toISOString(),
            trade_type: 'FILL',
            price: f.price,
            size: f.amount,
            commission: f.fee,
            product_id: productId(f),
            sequence_timestamp: new Date(f.time).toISOString(),
            liquidity_indicator: f.maker ? 'MAKER' : 'TAKER',
            size_in_quote: false,
            user_id: 'user-1',
            side: f.side === 'buy' ? 'BUY' : 'SELL',
            retail_portfolio_id: 'portfolio-1',
            cost: fillCost(f),
          })),
          cursor: more ? Buffer.from(String(offset + limit)).toString('base64url') : '',
        },
      };
    }
    return (
      coinbaseOrders(request.method, path, query, request.body, account, SEED_MARKETS) ?? {
        status: 404,
        body: { error: 'NOT_FOUND', error_details: 'Not Found', message: 'Not Found' },
      }
    );
  }

  const loopback = await startLoopback((request) => {
    const open = publicRoute(request);
    if (open) return open;
    const authenticated = authenticate(request);
    if ('body' in authenticated) return authenticated;
    if (overLimit(authenticated)) {
      stats.limitAnswers += 1;
      return { status: 429, body: { errors: [{ id: 'rate_limit_exceeded', message: 'Too many requests' }] } };
    }
    return privateRoute(request, authenticated);
  });

  return Object.assign(loopback, {
    limits,
    stats,
    addAccount(account: VenueAccount) {
      accounts.set(account.apiKey, { account, publicKey: createPublicKey(account.secret) });
      return account;
    },
    cross: (base: string, quote: string, price: string, upTo?: string) =>
      crossResting(
        [...accounts.values()].map((a) => a.account),
        base,
        quote,
        price,
        COINBASE_FILLS,
        upTo,
      ),
  });
}
