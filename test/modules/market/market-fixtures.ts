// Shared set-up of the market tests: the loopback Binance and CoinGecko fakes and an app wired to them.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { ModuleOptions } from '../../../src/app.ts';
import type { Clock } from '../../../src/platform/clock.ts';
import { startBinanceFake, type BinanceFake, type BinanceFakeOptions } from '../../fakes/binance.ts';
import { startCoinGeckoFake, type CoinGeckoFake, type CoinGeckoFakeOptions } from '../../fakes/coingecko.ts';
import { closedPort } from '../../helpers/ports.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';
import { waitFor as waitUntil } from '../../helpers/wait.ts';

/**
 * The market tests' 1 s upstream bound is for their failure cases; tests about something else (matching, the
 * console's pages) take this one, so that a loaded machine's slow first upstream read is not a refusal.
 */
export const PATIENT = { MARKET_UPSTREAM_TIMEOUT_MS: '10000' };

export interface MarketHarness extends TestApp {
  binance: BinanceFake;
  coingecko: CoinGeckoFake;
  get<T = Record<string, unknown>>(url: string): Promise<{ status: number; body: T; headers: Record<string, unknown> }>;
  stop(): Promise<void>;
}

export async function startMarket(
  options: {
    env?: Record<string, string>;
    clock?: Clock;
    binance?: BinanceFakeOptions;
    coingecko?: CoinGeckoFakeOptions;
    /** The app's Redis key prefix (buildTestApp's `cachePrefix`). */
    cachePrefix?: string;
    modules?: ModuleOptions;
  } = {},
): Promise<MarketHarness> {
  const { clock } = options;
  const binance = await startBinanceFake({
    ...(clock ? { weightClock: () => clock.now().getTime() } : {}),
    ...options.binance,
  });
  const coingecko = await startCoinGeckoFake(options.coingecko);
  // A set-up that fails must not leave the fakes listening: they would keep the test process alive.
  const app = await buildTestApp({
    clock: options.clock,
    ...(options.cachePrefix ? { cachePrefix: options.cachePrefix } : {}),
    ...(options.modules ? { modules: options.modules } : {}),
    env: {
      BINANCE_API_URL: binance.url,
      // The stream is configured (status `idle` until the server listens) but points at nothing.
      BINANCE_WS_URL: `ws://127.0.0.1:${await closedPort()}`,
      COINGECKO_API_URL: coingecko.url,
      MARKET_UPSTREAM_TIMEOUT_MS: '1000',
      ...options.env,
    },
  }).catch(async (error: unknown) => {
    await binance.close();
    await coingecko.close();
    throw error;
  });
  return {
    ...app,
    binance,
    coingecko,
    get: (url) => request(app.app, url),
    async stop() {
      await app.close();
      await binance.close();
      await coingecko.close();
    },
  };
}

export async function request<T>(app: FastifyInstance, url: string) {
  const response = await app.inject({ method: 'GET', url });
  return {
    status: response.statusCode,
    body: response.json() as T,
    headers: response.headers as Record<string, unknown>,
  };
}

interface Issue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

/** A 422 in FastAPI's shape whose issues are exactly these (type and loc), in this order. */
export function assertIssues(
  response: { status: number; body: unknown },
  expected: { type: string; loc: (string | number)[]; ctx?: Record<string, unknown> }[],
): Issue[] {
  assert.equal(response.status, 422, JSON.stringify(response.body));
  const { detail } = response.body as { detail: Issue[] };
  assert.ok(Array.isArray(detail), 'detail is a list of issues');
  assert.deepEqual(
    detail.map((d) => ({ type: d.type, loc: d.loc })),
    expected.map((e) => ({ type: e.type, loc: e.loc })),
  );
  detail.forEach((issue, i) => {
    assert.equal(typeof issue.msg, 'string');
    assert.ok('input' in issue, 'every issue carries input');
    if (expected[i]!.ctx) assert.deepEqual(issue.ctx, expected[i]!.ctx);
  });
  return detail;
}

/** Every market answer says where its data came from and how old it is. */
export function assertFresh(body: Record<string, unknown>, source = 'binance'): void {
  assert.equal(body.source, source);
  assert.equal(body.stale, false);
  assert.equal(typeof body.age_seconds, 'number');
  assert.ok(!Number.isNaN(Date.parse(String(body.updated_at))));
}

/** test/helpers/wait.ts's waitFor, with the timeout first (as the market and jobs tests call it). */
export function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 5_000, what = 'condition'): Promise<void> {
  return waitUntil(check, what, timeoutMs);
}
