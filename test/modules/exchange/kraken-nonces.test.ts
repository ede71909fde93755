// Kraken's nonces across instances (decision 280): Kraken refuses a nonce not greater than the last one it
// accepted for the key, in the order requests arrive, and its fake does exactly that. ccxt's own nonces
// (each instance's clock) cross as soon as calls of one key overlap; the service's calls of one key take
// turns in the venue budget, with their nonces from its sequence, so Kraken receives them in order: in
// one instance, in two instances whose clocks differ (on one Redis), and in two real app instances
// hammering one key through the API.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Exchange } from 'ccxt';
import { createMemoryCache, type Cache } from '../../../src/platform/cache/cache.ts';
import { createRedisCache } from '../../../src/platform/cache/redis-cache.ts';
import { systemClock, type Clock } from '../../../src/platform/clock.ts';
import { createVenueBudgets } from '../../../src/platform/venue-budget/venue-budget.ts';
import { createEgress } from '../../../src/platform/venue-budget/egress.ts';
import { venueProfile } from '../../../src/modules/exchange/adapters/venue-profiles.ts';
import { createCcxtClients } from '../../../src/modules/exchange/adapters/ccxt-clients.ts';
import { rewriteUrls, urlRewriter } from '../../../src/modules/exchange/adapters/ccxt-urls.ts';
import type { KrakenFake } from '../../fakes/kraken.ts';
import type { VenueAccount } from '../../fakes/venue-loopback.ts';
import { buildTestApp, signIn, type TestApp } from '../../helpers/test-app.ts';
import { storeVenueCredential } from '../../helpers/venue-credentials.ts';
import { CONFORMANCE_VENUES, conformanceAccount, credentialBody } from './conformance-venues.ts';

const KRAKEN = CONFORMANCE_VENUES.find((v) => v.venue === 'kraken')!;
/** The fake's counter is raised (conformance-venues.ts): only nonces can refuse a call here. */
const COUNTER = { max: 10_000, decayPerSecond: 1 };
const LANES = 12;
const ROUNDS = 3;
const redisSkip = process.env.REDIS_URL ? false : 'needs REDIS_URL: instances take turns through Redis';

/** One instance's clients over `cache`, with `clock` its own (instances' clocks differ). */
function instance(cache: Cache, url: string, clock: Clock = systemClock) {
  const budgets = createVenueBudgets({
    cache,
    clock,
    settings: { share: 0.8, maxWaitMs: 2_000, egress: 'nonces', userShare: 1 },
  });
  // Kraken's public counter per IP (one call a second) is lifted as for any loopback fake: each instance loads
  // the markets itself here, and four public calls at once would wait past maxWaitMs on it, not on a nonce.
  budgets
    .venue('kraken')
    .describe(venueProfile('kraken', { krakenCounter: COUNTER, rateLimit: false, apiUrls: { kraken: url } }));
  return createCcxtClients({
    settings: { binanceApiUrl: '', binanceUsApiUrl: '', apiUrls: { kraken: url }, rateLimit: false, timeoutMs: 5_000 },
    cache: createMemoryCache(),
    egress: createEgress(budgets, fetch),
    budget: (venue) => budgets.venue(venue),
  });
}

const behind = (ms: number): Clock => ({ now: () => new Date(Date.now() - ms) });
const credentialsOf = (account: VenueAccount) => ({ apiKey: account.apiKey, secret: account.secret });

/** `LANES` loops of `ROUNDS` balance reads over the instances at once; the errors they met. */
async function hammer(exchanges: Exchange[]): Promise<string[]> {
  const errors: string[] = [];
  await Promise.all(
    Array.from({ length: LANES }, async (_, lane) => {
      for (let round = 0; round < ROUNDS; round++) {
        try {
          const balance = await exchanges[(lane + round) % exchanges.length]!.fetchBalance();
          assert.ok(balance.total);
        } catch (error) {
          errors.push(String(error));
        }
      }
    }),
  );
  return errors;
}

describe("Kraken's nonces of one key", () => {
  let fake: KrakenFake;
  let caches: Cache[] = [];
  before(async () => {
    fake = (await KRAKEN.start()) as unknown as KrakenFake;
  });
  after(async () => {
    await fake.close();
    for (const cache of caches) await cache.close();
  });

  /** The calls refused for their nonce while `run` ran. */
  async function refusedDuring(run: () => Promise<unknown>): Promise<number> {
    const before = fake.stats.invalidNonces;
    await run();
    return fake.stats.invalidNonces - before;
  }

  it("plain ccxt, one key's calls at once: their nonces cross, and the fake refuses them as Kraken does", async () => {
    const account = fake.addAccount(conformanceAccount(KRAKEN, 0));
    const ccxt = await import('ccxt');
    const plain = new ccxt.kraken({ ...credentialsOf(account), enableRateLimit: false });
    rewriteUrls(plain.urls.api, urlRewriter('kraken', undefined, { apiUrls: { kraken: fake.url } } as never)!);
    await plain.loadMarkets();
    let errors: string[] = [];
    const refused = await refusedDuring(async () => {
      errors = await hammer([plain]);
    });
    assert.ok(refused > 0, 'without turns, some nonces arrive out of order');
    assert.ok(
      errors.every((e) => /Invalid nonce/.test(e)),
      errors.find((e) => !/Invalid nonce/.test(e)),
    );
  });

  it('one instance: its concurrent calls of one key take turns, and Kraken never refuses a nonce', async () => {
    const account = fake.addAccount(conformanceAccount(KRAKEN, 0));
    const clients = instance(createMemoryCache(), fake.url);
    // The gateway makes an instance per call, the order path keeps one: both kinds at once.
    const exchanges = await Promise.all(
      [0, 1, 2].map(() => clients.client('kraken', { credentials: credentialsOf(account) })),
    );
    let errors: string[] = [];
    const refused = await refusedDuring(async () => {
      errors = await hammer(exchanges);
    });
    assert.deepEqual(errors, []);
    assert.equal(refused, 0);
    assert.ok((fake.acceptedNonce(account.apiKey) ?? 0n) > 0n);
  });

  it('two instances whose clocks differ by 5 s, each counting alone: the one behind is refused', async () => {
    const account = fake.addAccount(conformanceAccount(KRAKEN, 0));
    const ahead = instance(createMemoryCache(), fake.url);
    const late = instance(createMemoryCache(), fake.url, behind(5_000));
    const exchanges = await Promise.all(
      [ahead, late].map((clients) => clients.client('kraken', { credentials: credentialsOf(account) })),
    );
    const refused = await refusedDuring(() => hammer(exchanges));
    assert.ok(refused > 0, 'separate sequences cross');
  });

  it('two instances whose clocks differ by 5 s, on one Redis: one sequence, never refused', {
    skip: redisSkip,
  }, async () => {
    const account = fake.addAccount(conformanceAccount(KRAKEN, 0));
    const prefix = `test:nonces:${process.pid}:${Date.now()}:`;
    caches = [createRedisCache(process.env.REDIS_URL!, prefix), createRedisCache(process.env.REDIS_URL!, prefix)];
    const ahead = instance(caches[0]!, fake.url);
    const late = instance(caches[1]!, fake.url, behind(5_000));
    const exchanges = (
      await Promise.all(
        [ahead, late].map((clients) =>
          Promise.all([0, 1].map(() => clients.client('kraken', { credentials: credentialsOf(account) }))),
        ),
      )
    ).flat();
    let errors: string[] = [];
    const refused = await refusedDuring(async () => {
      errors = await hammer(exchanges);
    });
    assert.deepEqual(errors, []);
    assert.equal(refused, 0);
  });
});

describe('two app instances on one Redis hammering one Kraken key through the API', { skip: redisSkip }, () => {
  let fake: KrakenFake;
  let first: TestApp;
  let second: TestApp;
  before(async () => {
    fake = (await KRAKEN.start()) as unknown as KrakenFake;
    const env = {
      EXCHANGE_API_URLS: JSON.stringify({ kraken: fake.url }),
      EXCHANGE_RATE_LIMIT: 'false',
      EXCHANGE_TIMEOUT_MS: '5000',
      SYNC_PER_USER_PER_MINUTE: '1000',
      ...KRAKEN.env,
    };
    first = await buildTestApp({ env, cachePrefix: 'kraken-nonces:' });
    // Two hosts' clocks are never quite one: the second runs 3 s behind.
    second = await buildTestApp({ env, cachePrefix: 'kraken-nonces:', keepData: true, clock: behind(3_000) });
  });
  after(async () => {
    await second?.close();
    await first?.close();
    await fake?.close();
  });

  it('balance syncs and key checks of one key on both at once: every one answered, no nonce refused', async () => {
    const user = await signIn(first.app, first.database);
    const account = fake.addAccount(conformanceAccount(KRAKEN, 0));
    await storeVenueCredential(first.app, user, KRAKEN.venue, account);
    const invalidBefore = fake.stats.invalidNonces;
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => {
        const app = (i % 2 === 0 ? first : second).app;
        return i % 3 === 0
          ? app.inject({
              method: 'POST',
              url: '/api/exchange/validate',
              headers: user.headers,
              payload: credentialBody(KRAKEN, account, 'exchange'),
            })
          : app.inject({ method: 'POST', url: '/api/exchange/balance/sync?exchange=kraken', headers: user.headers });
      }),
    );
    for (const answer of answers) {
      assert.equal(answer.statusCode, 200, answer.body);
      assert.ok(answer.json().valid === true || answer.json().success === true, answer.body);
    }
    assert.equal(fake.stats.invalidNonces - invalidBefore, 0);
    const balanceCalls = fake.requests.filter((r) => r.path.startsWith('/0/private/Balance')).length;
    assert.ok(balanceCalls >= 24, `${balanceCalls} private calls reached Kraken`);
  });
});
