import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FakeAccount } from '../../fakes/binance.ts';
import { SAMPLE_DUST, type SapiAccountState } from '../../fakes/binance-sapi.ts';
import { assertLoggedWithoutSecrets } from '../../helpers/log-checks.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { storeVenueCredential } from '../../helpers/venue-credentials.ts';
import { addAccount, startVenueFakes, type VenueFakes } from './venue-fakes.ts';

describe('fee-token burn and dust assets', () => {
  let fakes: VenueFakes;
  let t: TestApp;
  let user: TestUser;
  let global: FakeAccount;
  let us: FakeAccount;

  before(async () => {
    fakes = await startVenueFakes();
    t = await buildTestApp({ env: fakes.env() });
    user = await signIn(t.app, t.database);
    global = addAccount(fakes.binance, { extra: { dust: SAMPLE_DUST } satisfies SapiAccountState });
    us = addAccount(fakes.binanceus, { extra: { dust: SAMPLE_DUST } satisfies SapiAccountState });
    for (const [venue, keys] of [
      ['binance', global],
      ['binanceus', us],
    ] as const) {
      await storeVenueCredential(t.app, user, venue, keys);
    }
  });
  after(async () => {
    await t.close();
    await fakes.close();
  });

  const call = (method: 'GET' | 'POST', url: string, payload?: unknown, who: TestUser | null = user) =>
    t.app.inject({ method, url, headers: who?.headers ?? {}, payload: payload as object });

  describe('feetoken-burn', () => {
    it('reads and sets spot BNB burn on binance, sending "true"/"false" as Binance expects', async () => {
      const read = await call('GET', '/api/exchange/feetoken-burn?exchange=binance');
      assert.equal(read.statusCode, 200);
      const { credential_id: credentialId, ...burn } = read.json<Record<string, unknown>>();
      assert.deepEqual(burn, {
        exchange: 'binance',
        fee_token: 'BNB',
        spot_feetoken_burn: false,
        interest_feetoken_burn: false,
      });
      assert.match(String(credentialId), /^[0-9a-f-]{36}$/);
      const set = await call('POST', '/api/exchange/feetoken-burn', { spot_feetoken_burn: true, exchange: 'binance' });
      assert.equal(set.statusCode, 200);
      assert.equal(set.json().spot_feetoken_burn, true);
      const sent = fakes.binance.requests.filter((r) => r.method === 'POST' && r.path === '/sapi/v1/bnbBurn').at(-1)!;
      assert.equal(sent.params.get('spotBNBBurn'), 'true');
      assert.equal((await call('GET', '/api/exchange/feetoken-burn?exchange=binance')).json().spot_feetoken_burn, true);
      const admin = await signIn(t.app, t.database, { role: 'admin' });
      const activity = (
        await call('GET', `/api/admin/users/${user.id}/activity?limit=100`, undefined, admin)
      ).json() as { action: string; details: Record<string, unknown> }[];
      const audits = activity.filter((a) => a.action === 'exchange.feetoken_burn.update');
      assert.equal(audits.length, 1);
      assert.equal(audits[0]!.details.spot_feetoken_burn, true);
    });

    it(
      'answers a clear 400 on the default venue binanceus, ' + 'which has no such setting, without calling it',
      async () => {
        const calls = fakes.binanceus.requests.length;
        const read = await call('GET', '/api/exchange/feetoken-burn');
        assert.equal(read.statusCode, 400);
        assert.match(read.json().detail, /not supported on binanceus/);
        const set = await call('POST', '/api/exchange/feetoken-burn', { spot_feetoken_burn: true });
        assert.equal(set.statusCode, 400);
        assert.match(set.json().detail, /not supported on binanceus/);
        assert.equal(fakes.binanceus.requests.length, calls);
      },
    );

    it('requires spot_feetoken_burn as a boolean and exchange as one of the two venues', async () => {
      const missing = await call('POST', '/api/exchange/feetoken-burn', { exchange: 'binance' });
      assert.equal(missing.statusCode, 422);
      assert.deepEqual(missing.json().detail[0], {
        type: 'missing',
        loc: ['body', 'spot_feetoken_burn'],
        msg: 'Field required',
        input: { exchange: 'binance' },
      });
      const wrong = await call('POST', '/api/exchange/feetoken-burn', { spot_feetoken_burn: null, exchange: 'kraken' });
      const types = Object.fromEntries(
        (wrong.json().detail as { loc: string[]; type: string }[]).map((d) => [d.loc[1], d.type]),
      );
      assert.deepEqual(types, { spot_feetoken_burn: 'bool_type', exchange: 'literal_error' });
      assert.equal(
        (await call('GET', '/api/exchange/feetoken-burn?exchange=okx')).json().detail[0].type,
        'literal_error',
      );
    });

    it('answers 404 without a binance credential and maps a refused key to 400', async () => {
      const other = await signIn(t.app, t.database);
      const none = await call('GET', '/api/exchange/feetoken-burn?exchange=binance', undefined, other);
      assert.equal(none.statusCode, 404);
      await storeVenueCredential(t.app, other, 'binance', { apiKey: 'unknown-key-0001', secret: 'unknown-secret-01' });
      const refused = await call('GET', '/api/exchange/feetoken-burn?exchange=binance', undefined, other);
      assert.equal(refused.statusCode, 400);
      assert.match(refused.json().detail, /binance refused the API key/);
    });

    it('answers 503 when the venue is down, logging the outage without the signed request URL', async () => {
      fakes.binance.fail(503, 'Service Unavailable', { pathPrefix: '/sapi/v1/bnbBurn' });
      const response = await call('GET', '/api/exchange/feetoken-burn?exchange=binance');
      assert.equal(response.statusCode, 503);
      assert.match(response.json().detail, /^binance is unavailable/);
      // ccxt's message carried GET <url>?...&signature=...; the outage is one warning naming the venue
      // and the failure, without the cause (decision 405).
      const line = t.logLines().find((l) => l.reqId === response.headers['x-request-id'] && (l.level as number) >= 40);
      assert.deepEqual(line && [line.level, line.msg, line.dependency, line.failure, line.code, line.err], [
        40,
        'binance unavailable (venue_5xx): answering 503',
        'binance',
        'venue_5xx',
        'HTTP 503',
        undefined,
      ]);
      assert.ok(!t.logText().includes('signature='));
    });

    it('needs a bearer token', async () => {
      assert.equal(
        (await call('GET', '/api/exchange/feetoken-burn?exchange=binance', undefined, null)).statusCode,
        401,
      );
      assert.equal(
        (await call('POST', '/api/exchange/feetoken-burn', { spot_feetoken_burn: true }, null)).statusCode,
        401,
      );
    });
  });

  describe('dust-assets', () => {
    it('lists dust on binance from POST /sapi/v1/asset/dust-btc', async () => {
      const response = await call('GET', '/api/exchange/dust-assets?exchange=binance');
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.equal(body.exchange, 'binance');
      assert.equal(body.count, 2);
      assert.deepEqual(body.assets[0], {
        asset: 'ADA',
        asset_name: 'Cardano',
        amount_free: 6.21,
        to_btc: 0.00016848,
        to_feetoken: 0.01777302,
        to_feetoken_after_fee: 0.01741756,
        fee: 0.00035546,
        usd_value: null,
      });
      assert.equal(body.total_feetoken, 0.01847302);
      assert.equal(body.fee_rate, 0.02);
    });

    it('lists dust on binance.us (the default) from GET /sapi/v1/asset/query/dust-assets', async () => {
      const body = (await call('GET', '/api/exchange/dust-assets')).json();
      assert.equal(body.exchange, 'binanceus');
      assert.equal(body.assets[1].asset, 'TRX');
      assert.equal(body.assets[1].usd_value, 0.42);
      assert.equal(body.assets[1].to_feetoken_after_fee, 0.000686);
      assert.equal(body.assets[1].to_btc, null);
      assert.equal(body.total_feetoken, 0.01847302);
      assert.equal(fakes.binanceus.countRequests('/sapi/v1/asset/query/dust-assets'), 1);
    });

    it('maps a venue outage to 503 and validates the venue; needs a token', async () => {
      fakes.binance.fail(503, 'Service Unavailable', { pathPrefix: '/sapi/v1/asset/dust-btc' });
      assert.equal((await call('GET', '/api/exchange/dust-assets?exchange=binance')).statusCode, 503);
      assert.equal(
        (await call('GET', '/api/exchange/dust-assets?exchange=kraken')).json().detail[0].type,
        'literal_error',
      );
      assert.equal((await call('GET', '/api/exchange/dust-assets', undefined, null)).statusCode, 401);
    });
  });

  it('never logs keys, secrets or signed URLs', () => {
    // The keys were in play: each reached its venue (the key in X-MBX-APIKEY).
    assert.ok(fakes.binance.requests.some((r) => r.headers['x-mbx-apikey'] === global.apiKey));
    assert.ok(fakes.binanceus.requests.some((r) => r.headers['x-mbx-apikey'] === us.apiKey));
    assertLoggedWithoutSecrets(
      t,
      [
        { method: 'POST', path: '/api/exchange/credentials' },
        { method: 'GET', path: '/api/exchange/feetoken-burn' },
        { method: 'POST', path: '/api/exchange/feetoken-burn' },
        { method: 'GET', path: '/api/exchange/dust-assets' },
      ],
      [global.apiKey, global.secret, us.apiKey, us.secret],
    );
    assert.ok(!t.logText().includes('signature='));
  });
});
