// Set-up shared by the orders tests: the Binance fake with its order endpoints, the app pointed at it with
// live trading on, and traders: users with two-factor on, a fresh second factor and a Binance credential
// whose fake account holds balances; and the same app pointed at the fakes of other venues too.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startBinanceFake, type BinanceFake, type BinanceFakeOptions, type FakeAccount } from '../../fakes/binance.ts';
import { withOrders, type BinanceOrderBook } from '../../fakes/binance-orders.ts';
import { decodeBase32, referenceTotp } from '../../helpers/totp-reference.ts';
import { shiftedClock } from '../../helpers/shifted-clock.ts';
import { buildTestApp, signIn, type TestApp, type TestAppOptions, type TestUser } from '../../helpers/test-app.ts';
import { storeVenueCredential } from '../../helpers/venue-credentials.ts';
import type { KrakenFake } from '../../fakes/kraken.ts';
import type { VenueAccount } from '../../fakes/venue-loopback.ts';
import {
  CONFORMANCE_VENUES,
  conformanceAccount,
  type ConformanceFake,
  type ConformanceVenue,
} from '../exchange/conformance-venues.ts';

export interface Trader extends TestUser {
  credentialId: string;
  account: FakeAccount;
  secret: string;
}

export type OrdersApp = Awaited<ReturnType<typeof startOrdersApp>>;

export async function startOrdersApp(
  options: { env?: Record<string, string>; app?: TestAppOptions; fake?: BinanceFakeOptions } = {},
) {
  const binance: BinanceFake = await startBinanceFake(options.fake);
  const book: BinanceOrderBook = withOrders(binance);
  const clock = shiftedClock();
  const t: TestApp = await buildTestApp({
    clock,
    env: {
      BINANCE_API_URL: binance.url,
      EXCHANGE_RATE_LIMIT: 'false',
      EXCHANGE_TIMEOUT_MS: '1500',
      LIVE_TRADING: 'true',
      ...options.env,
    },
    ...options.app,
  });

  const inject = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    headers: Record<string, string>,
    payload?: unknown,
  ) => t.app.inject({ method, url, headers, payload: payload as object });
  const codeAt = (secret: string) =>
    referenceTotp(Buffer.from(decodeBase32(secret)), Math.floor(clock.now().getTime() / 30_000) * 30, 6);

  /** A user with two-factor on, signed in with it just now, holding a Binance credential. */
  async function trader(balances: Record<string, string> = { USDT: '100000', BTC: '10', ETH: '100' }): Promise<Trader> {
    const user = await signIn(t.app, t.database);
    const setup = await inject('POST', '/api/auth/2fa/setup', user.headers, { password: user.password });
    assert.equal(setup.statusCode, 200, setup.body);
    const { secret } = setup.json<{ secret: string }>();
    assert.equal(
      (await inject('POST', '/api/auth/2fa/enable', user.headers, { code: codeAt(secret) })).statusCode,
      200,
    );
    clock.advance(30_000);
    const login = await inject('POST', '/api/auth/login', {}, { email: user.email, password: user.password });
    const verified = await inject(
      'POST',
      '/api/auth/2fa/verify',
      {},
      {
        mfa_token: login.json<{ mfa_token: string }>().mfa_token,
        code: codeAt(secret),
      },
    );
    assert.equal(verified.statusCode, 200, verified.body);
    const token = verified.json<{ access_token: string }>().access_token;
    const headers = { authorization: `Bearer ${token}` };
    const apiKey = `key${randomBytes(12).toString('hex')}`;
    const account = binance.addAccount({
      apiKey,
      secret: `secret${randomBytes(16).toString('hex')}`,
      balances: Object.entries(balances).map(([asset, free]) => ({ asset, free, locked: '0' })),
      trades: {},
    });
    const credential = await storeVenueCredential(t.app, { headers }, 'binance', account);
    return { ...user, token, headers, secret, account, credentialId: credential.id };
  }

  const place = (user: { headers: Record<string, string> }, body: Record<string, unknown>, key?: string) =>
    inject(
      'POST',
      '/api/orders',
      { ...user.headers, ...(key ? { 'idempotency-key': key } : {}) },
      {
        exchange: 'binance',
        symbol: 'BTC/USDT',
        side: 'buy',
        type: 'market',
        amount: '0.01',
        mode: 'live',
        ...body,
      },
    );

  /** The trader's headers with a new API token that may trade, in place of its session. */
  async function tradingToken(user: Trader): Promise<{ headers: Record<string, string> }> {
    const made = await inject('POST', '/api/auth/tokens', user.headers, {
      name: 'orders',
      scopes: ['trade:read', 'trade:write'],
    });
    assert.equal(made.statusCode, 201, made.body);
    return { headers: { authorization: `Bearer ${made.json<{ token: string }>().token}` } };
  }

  return {
    t,
    binance,
    book,
    clock,
    inject,
    trader,
    tradingToken,
    place,
    async close() {
      await t.close();
      await binance.close();
    },
  };
}

export type VenueOrdersApp = Awaited<ReturnType<typeof startVenueOrdersApp>>;

/**
 * The orders app with each of `venues` at its own fake, started here: the venues' own settings, then `env`.
 * Closing it closes the fakes too; if it fails to start, those already started are closed.
 */
export async function startVenueOrdersApp(venues: readonly ConformanceVenue[], env: Record<string, string> = {}) {
  const fakes = new Map<string, ConformanceFake>();
  try {
    for (const v of venues) fakes.set(v.venue, await v.start());
    const orders = await startOrdersApp({
      env: {
        EXCHANGE_API_URLS: JSON.stringify(Object.fromEntries([...fakes].map(([venue, fake]) => [venue, fake.url]))),
        ...Object.assign({}, ...venues.map((v) => v.env ?? {})),
        ...env,
      },
    });
    return {
      ...orders,
      fakes,
      async close() {
        await orders.close();
        for (const fake of fakes.values()) await fake.close();
      },
    };
  } catch (error) {
    for (const fake of fakes.values()) await fake.close();
    throw error;
  }
}

export const KRAKEN = CONFORMANCE_VENUES.find((v) => v.venue === 'kraken')!;

/** A limit buy on Kraken, far from its fake's market. */
export const KRAKEN_LIMIT_BUY = {
  exchange: 'kraken',
  symbol: 'BTC/USDT',
  side: 'buy',
  type: 'limit',
  amount: '0.001',
  price: '60000',
} as const;

/**
 * The orders app with Kraken at its fake, without the notional and price-band limits, and one trader whose
 * credential is a Kraken account of that fake; `env` after those settings.
 */
export async function startKrakenTrading(env: Record<string, string> = {}) {
  const o = await startVenueOrdersApp([KRAKEN], {
    TRADING_MAX_ORDER_NOTIONAL: 'none',
    TRADING_PRICE_BAND_PERCENT: 'none',
    ...env,
  });
  try {
    const fake = o.fakes.get(KRAKEN.venue) as unknown as KrakenFake;
    const trader = await o.trader();
    const account: VenueAccount = fake.addAccount(conformanceAccount(KRAKEN, 0));
    await storeVenueCredential(o.t.app, trader, KRAKEN.venue, account);
    return { o, fake, trader, account };
  } catch (error) {
    await o.close();
    throw error;
  }
}
