// The CoinGecko fake must answer like CoinGecko: parameters, ordering, key checks and failures.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCoinGeckoFake, type CoinGeckoFake } from '../fakes/coingecko.ts';

describe('CoinGecko fake', () => {
  let fake: CoinGeckoFake;
  let keyed: CoinGeckoFake;
  before(async () => {
    fake = await startCoinGeckoFake();
    keyed = await startCoinGeckoFake({ apiKey: 'CG-key', plan: 'pro' });
  });
  after(async () => {
    await fake.close();
    await keyed.close();
  });

  it('pages /coins/markets in market-cap order and requires vs_currency', async () => {
    const rows = (await (
      await fetch(`${fake.url}/coins/markets?vs_currency=usd&per_page=250&page=1`)
    ).json()) as Record<string, number>[];
    assert.equal(rows.length, 250);
    assert.ok(rows.every((r, i) => i === 0 || r.market_cap! < rows[i - 1]!.market_cap!));
    assert.equal(rows[0]!.market_cap_rank, 1);
    const second = (await (
      await fetch(`${fake.url}/coins/markets?vs_currency=usd&per_page=100&page=2`)
    ).json()) as Record<string, number>[];
    assert.equal(second[0]!.market_cap_rank, 101);
    const missing = await fetch(`${fake.url}/coins/markets`);
    assert.equal(missing.status, 400);
    assert.equal((await fetch(`${fake.url}/coins/markets?vs_currency=usd&per_page=251`)).status, 400);
  });

  it('answers /global with totals in several currencies', async () => {
    const { data } = (await (await fetch(`${fake.url}/global`)).json()) as {
      data: Record<string, Record<string, number>>;
    };
    assert.ok(data.total_market_cap!.usd! > 0);
    assert.ok(data.market_cap_percentage!.btc! > 0);
  });

  it("checks a configured key in the plan's header", async () => {
    assert.equal((await fetch(`${keyed.url}/ping`)).status, 401);
    assert.equal(
      (await fetch(`${keyed.url}/ping`, { headers: { 'x-cg-demo-api-key': 'CG-key' } })).status,
      401,
      'wrong plan header',
    );
    assert.equal((await fetch(`${keyed.url}/ping`, { headers: { 'x-cg-pro-api-key': 'nope' } })).status, 401);
    assert.equal((await fetch(`${keyed.url}/ping`, { headers: { 'x-cg-pro-api-key': 'CG-key' } })).status, 200);
  });

  it('fails and slows down on demand', async () => {
    fake.fail(429, undefined, { retryAfter: 30 });
    const limited = await fetch(`${fake.url}/ping`);
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '30');
    fake.delay(150);
    const started = Date.now();
    assert.equal((await fetch(`${fake.url}/ping`)).status, 200);
    assert.ok(Date.now() - started >= 140);
  });
});
