// The SAPI part of the Binance fake must be faithful: these checks pin what the exchange tests rely on.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startBinanceFake, type BinanceFake } from '../fakes/binance.ts';
import { registerBinanceSapi, SAMPLE_DUST, type SapiControl } from '../fakes/binance-sapi.ts';

const KEY = 'sapi-key-123456789';
const SECRET = 'sapi-secret-123456789';

const sign = (query: string, secret = SECRET) =>
  `${query}&signature=${createHmac('sha256', secret).update(query).digest('hex')}`;

describe('Binance fake: SAPI endpoints', () => {
  let global: BinanceFake;
  let us: BinanceFake;
  let control: SapiControl;
  before(async () => {
    global = await startBinanceFake();
    us = await startBinanceFake({ variant: 'us' });
    control = registerBinanceSapi(global);
    registerBinanceSapi(us);
    for (const fake of [global, us])
      fake.addAccount({ apiKey: KEY, secret: SECRET, balances: [], trades: {}, extra: { dust: SAMPLE_DUST } });
  });
  after(async () => {
    await global.close();
    await us.close();
  });

  const call = (fake: BinanceFake, method: string, path: string, query: string, options: { body?: string } = {}) =>
    fetch(`${fake.url}${path}?${options.body === undefined ? sign(query) : query}`, {
      method,
      headers: {
        'X-MBX-APIKEY': KEY,
        ...(options.body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: options.body,
    });

  it('reads and sets bnbBurn with the strings "true"/"false", keeping the state', async () => {
    const read = await call(global, 'GET', '/sapi/v1/bnbBurn', `timestamp=${Date.now()}`);
    assert.equal(read.status, 200);
    assert.deepEqual(await read.json(), { spotBNBBurn: false, interestBNBBurn: false });
    assert.ok(Number(read.headers.get('x-sapi-used-ip-weight-1m')) >= 1);
    const set = await call(global, 'POST', '/sapi/v1/bnbBurn', '', {
      body: sign(`spotBNBBurn=true&timestamp=${Date.now()}`),
    });
    assert.deepEqual(await set.json(), { spotBNBBurn: true, interestBNBBurn: false });
    const again = await call(global, 'GET', '/sapi/v1/bnbBurn', `timestamp=${Date.now()}`);
    assert.equal((await again.json()).spotBNBBurn, true);
  });

  it('refuses a bnbBurn value other than "true"/"false" and a POST without any flag', async () => {
    const bad = await call(global, 'POST', '/sapi/v1/bnbBurn', '', {
      body: sign(`spotBNBBurn=yes&timestamp=${Date.now()}`),
    });
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).code, -1100);
    const none = await call(global, 'POST', '/sapi/v1/bnbBurn', '', { body: sign(`timestamp=${Date.now()}`) });
    assert.equal((await none.json()).code, -1102);
  });

  it('verifies SAPI signatures like the /api endpoints', async () => {
    const response = await fetch(`${global.url}/sapi/v1/bnbBurn?${sign(`timestamp=${Date.now()}`, 'wrong-secret')}`, {
      headers: { 'X-MBX-APIKEY': KEY },
    });
    assert.equal(response.status, 400);
    assert.equal((await response.json()).code, -1022);
  });

  it('lists dust with totals on global Binance (POST dust-btc) and binance.us (GET dust-assets)', async () => {
    const global_ = await (
      await call(global, 'POST', '/sapi/v1/asset/dust-btc', '', {
        body: sign(`accountType=SPOT&timestamp=${Date.now()}`),
      })
    ).json();
    assert.equal(global_.details.length, 2);
    assert.deepEqual(Object.keys(global_.details[0]).sort(), [
      'amountFree',
      'asset',
      'assetFullName',
      'exchange',
      'toBNB',
      'toBNBOffExchange',
      'toBTC',
    ]);
    assert.equal(global_.totalTransferBNB, '0.01847302');
    assert.equal(global_.totalTransferBtc, '0.00017448');
    const us_ = await (
      await call(us, 'GET', '/sapi/v1/asset/query/dust-assets', `toAsset=BNB&timestamp=${Date.now()}`)
    ).json();
    assert.equal(us_.convertibleAssets[1].fromAsset, 'TRX');
    assert.equal(us_.convertibleAssets[1].receivedAsset, '0.00068600');
    assert.equal(us_.totalConvertedAsset, '0.01847302');
  });

  it('reports key restrictions from the account flags, overridable per account', async () => {
    const body = await (
      await call(global, 'GET', '/sapi/v1/account/apiRestrictions', `timestamp=${Date.now()}`)
    ).json();
    assert.equal(body.enableReading, true);
    assert.equal(body.enableSpotAndMarginTrading, true);
    assert.equal(body.enableWithdrawals, false);
    assert.equal(body.ipRestrict, false);
  });

  it('refuses a key that may not read with -2015 on the SAPI USER_DATA endpoints too', async () => {
    global.addAccount({ apiKey: 'sapi-blind-key-1234', secret: SECRET, balances: [], trades: {}, canRead: false });
    for (const [method, path] of [
      ['GET', '/sapi/v1/account/apiRestrictions'],
      ['GET', '/sapi/v1/bnbBurn'],
      ['POST', '/sapi/v1/asset/dust-btc'],
    ] as const) {
      const response = await fetch(`${global.url}${path}?${sign(`timestamp=${Date.now()}`)}`, {
        method,
        headers: { 'X-MBX-APIKEY': 'sapi-blind-key-1234' },
      });
      assert.equal(response.status, 401, `${method} ${path}`);
      assert.deepEqual(await response.json(), { code: -2015, msg: 'Invalid API-key, IP, or permissions for action.' });
    }
  });

  it('answers system status, and maintenance on demand', async () => {
    assert.deepEqual(await (await fetch(`${global.url}/sapi/v1/system/status`)).json(), { status: 0, msg: 'normal' });
    control.maintenance = true;
    assert.deepEqual(await (await fetch(`${global.url}/sapi/v1/system/status`)).json(), {
      status: 1,
      msg: 'system maintenance',
    });
    control.maintenance = false;
    assert.equal((await fetch(`${us.url}/sapi/v1/system/status`)).status, 200);
  });

  it('has no bnbBurn, dust-btc or apiRestrictions on binance.us, and no dust-assets on global Binance', async () => {
    for (const [method, path] of [
      ['GET', '/sapi/v1/bnbBurn'],
      ['POST', '/sapi/v1/asset/dust-btc'],
      ['GET', '/sapi/v1/account/apiRestrictions'],
    ]) {
      assert.equal((await call(us, method!, path!, `timestamp=${Date.now()}`)).status, 404, `${method} ${path}`);
    }
    assert.equal(
      (await call(global, 'GET', '/sapi/v1/asset/query/dust-assets', `timestamp=${Date.now()}`)).status,
      404,
    );
  });
});
