// What reaches us when something between a venue and us breaks: a CDN's HTML error page (with its 5xx, or
// with 200 from a proxy that rewrote it), JSON cut short, a body cut off mid-way. Every route that asks the
// venue answers the contract's failure (a sync's `success: false` with its error_type, else 502/503 with
// `{"detail"}`), never a 500, never the page itself, and never takes the garbage for the account's state.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { BROKEN_JSON, CDN_ERROR_PAGE, type BodyForm } from '../../fakes/garbled-answers.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { storeVenueCredential } from '../../helpers/venue-credentials.ts';
import { CONFORMANCE_VENUES, conformanceAccount, credentialBody, type ConformanceFake } from './conformance-venues.ts';
import { addAccount, startVenueFakes, type VenueFakes } from './venue-fakes.ts';

const kraken = CONFORMANCE_VENUES.find((v) => v.venue === 'kraken')!;
let fakes: VenueFakes;
let krakenFake: ConformanceFake;
let t: TestApp;
let user: TestUser;

before(async () => {
  fakes = await startVenueFakes();
  krakenFake = await kraken.start();
  const urls = { ...JSON.parse(fakes.env().EXCHANGE_API_URLS!), kraken: krakenFake.url };
  t = await buildTestApp({
    env: fakes.env({ EXCHANGE_API_URLS: JSON.stringify(urls), SYNC_PER_USER_PER_MINUTE: '1000', ...kraken.env }),
  });
  user = await signIn(t.app, t.database);
  await storeVenueCredential(t.app, user, 'binance', addAccount(fakes.binance));
  const account = krakenFake.addAccount(conformanceAccount(kraken, 3));
  const created = await call('POST', '/api/exchange/credentials', credentialBody(kraken, account, 'exchange_name'));
  assert.equal(created.statusCode, 201, created.body);
});
after(async () => {
  await t.close();
  await krakenFake.close();
  await fakes.close();
});

function call(method: 'GET' | 'POST', url: string, payload?: object): Promise<LightMyRequestResponse> {
  return t.app.inject({ method, url, headers: user.headers, ...(payload ? { payload } : {}) });
}

type Form = BodyForm & { status: number };
const FORMS: Record<string, Form> = {
  "a CDN's 502 page": { status: 502, raw: CDN_ERROR_PAGE },
  "a CDN's page with 200": { status: 200, raw: CDN_ERROR_PAGE },
  'JSON cut short with 200': { status: 200, raw: BROKEN_JSON, contentType: 'application/json' },
  'a body cut off mid-way': { status: 200, truncate: true },
};

/** The venue's failure as the contract writes it: never a 500, never the page's HTML. */
function assertFailure(response: LightMyRequestResponse, kind: 'sync' | 'read') {
  assert.ok(!response.body.includes('<'), `no HTML in ${response.body}`);
  if (kind === 'sync') {
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.deepEqual([body.success, body.error_type], [false, 'network'], response.body);
    assert.match(body.error, /^(binance|kraken) /);
  } else {
    assert.ok([502, 503].includes(response.statusCode), `${response.statusCode} ${response.body}`);
    assert.equal(typeof response.json().detail, 'string');
  }
}

const VENUES = [
  {
    venue: 'binance',
    fail: (form: Form, path: string) =>
      fakes.binance.fail(form.status, { balances: [], lastPrice: '1' }, { ...form, pathPrefix: path, times: 1 }),
    sent: (path: string) => fakes.binance.requests.filter((r) => r.path.startsWith(path)).length,
    paths: { balance: '/api/v3/account', trades: '/api/v3/myTrades', ticker: '/api/v3/ticker' },
    symbol: 'BTCUSDT',
  },
  {
    venue: 'kraken',
    fail: (form: Form, path: string) =>
      krakenFake.fail({ ...form, body: { error: [], result: { XXBT: '1' } } }, { path, times: 1 }),
    sent: (path: string) => krakenFake.requests.filter((r) => r.path.startsWith(path)).length,
    paths: { balance: '/0/private/Balance', trades: '/0/private/TradesHistory', ticker: '/0/public/Ticker' },
    symbol: 'BTC/USDT',
  },
] as const;

for (const v of VENUES) {
  describe(`garbled answers from ${v.venue}`, () => {
    for (const [name, form] of Object.entries(FORMS)) {
      it(`${name}: the syncs fail as network errors, the stored balance stays, the ticker is a 502/503`, async () => {
        // A good sync first: the balance stored is the account's, and the breaker's count of failures starts over.
        const good = await call('POST', `/api/exchange/balance/sync?exchange=${v.venue}`);
        assert.equal(good.json().success, true, good.body);
        const stored = (await call('GET', `/api/exchange/balance?exchange=${v.venue}`)).json();
        assert.ok(Object.keys(stored.balances).length > 0, JSON.stringify(stored));

        const asked = (path: string) => {
          const before = v.sent(path);
          return () => assert.equal(v.sent(path), before + 1, `the venue was asked at ${path}`);
        };
        let wasAsked = asked(v.paths.balance);
        v.fail(form, v.paths.balance);
        assertFailure(await call('POST', `/api/exchange/balance/sync?exchange=${v.venue}`), 'sync');
        wasAsked();
        const after = (await call('GET', `/api/exchange/balance?exchange=${v.venue}`)).json();
        assert.deepEqual(after, stored, 'the garbled answer is not stored as the account');

        wasAsked = asked(v.paths.trades);
        v.fail(form, v.paths.trades);
        assertFailure(await call('POST', `/api/exchange/trades/sync?exchange=${v.venue}&symbol=${v.symbol}`), 'sync');
        wasAsked();

        wasAsked = asked(v.paths.ticker);
        v.fail(form, v.paths.ticker);
        assertFailure(await call('GET', `/api/exchange/ticker?exchange=${v.venue}&symbol=BTCUSDT`), 'read');
        wasAsked();
      });
    }
  });
}

describe('garbled answers to market data', () => {
  const symbols = ['BTCUSDT', 'ETHUSDT', 'XRPUSDT', 'LINKUSDT'];
  for (const [i, [name, form]] of Object.entries(FORMS).entries()) {
    it(`${name}: an order book not cached yet is a 502/503`, async () => {
      fakes.binance.fail(form.status, { bids: [], asks: [] }, { ...form, pathPrefix: '/api/v3/depth', times: 1 });
      assertFailure(await call('GET', `/api/v1/market/orderbook?symbol=${symbols[i]}`), 'read');
      assert.equal(fakes.binance.countRequests('/api/v3/depth'), i + 1);
    });
  }
});
