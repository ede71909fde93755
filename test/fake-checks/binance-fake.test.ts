// The Binance fake must be faithful: these checks pin the protocol details tests rely on.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startBinanceFake, type BinanceFake } from '../fakes/binance.ts';
import { binanceTrade } from '../fakes/binance-shapes.ts';

describe('Binance fake', () => {
  let fake: BinanceFake;
  before(async () => {
    fake = await startBinanceFake();
    fake.addAccount({
      apiKey: 'key-123456789',
      secret: 'secret-123456789',
      balances: [{ asset: 'BTC', free: '0.50000000', locked: '0.10000000' }],
      trades: {
        BTCUSDT: [
          binanceTrade({
            symbol: 'BTCUSDT',
            id: 1,
            price: '65000.00',
            qty: '0.01',
            isBuyer: true,
            time: 1_700_000_000_000,
          }),
        ],
      },
    });
  });
  after(() => fake.close());

  const signed = (query: string, secret = 'secret-123456789') =>
    `${query}&signature=${createHmac('sha256', secret).update(query).digest('hex')}`;

  it('answers public data with string numbers and a weight header', async () => {
    const response = await fetch(`${fake.url}/api/v3/ticker/price?symbol=BTCUSDT`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { symbol: 'BTCUSDT', price: '65000.00' });
    assert.equal(response.headers.get('x-mbx-used-weight-1m'), '2');
  });

  it('refuses an unknown symbol with -1121', async () => {
    const response = await fetch(`${fake.url}/api/v3/ticker/24hr?symbol=NOPE`);
    assert.equal(response.status, 400);
    assert.deepEqual(await response.json(), { code: -1121, msg: 'Invalid symbol.' });
  });

  it('verifies signatures, keys and the recvWindow like Binance', async () => {
    const now = Date.now();
    const ok = await fetch(`${fake.url}/api/v3/account?${signed(`timestamp=${now}`)}`, {
      headers: { 'X-MBX-APIKEY': 'key-123456789' },
    });
    assert.equal(ok.status, 200);
    assert.equal((await ok.json()).balances[0].asset, 'BTC');
    const badSig = await fetch(`${fake.url}/api/v3/account?${signed(`timestamp=${now}`, 'wrong')}`, {
      headers: { 'X-MBX-APIKEY': 'key-123456789' },
    });
    assert.equal((await badSig.json()).code, -1022);
    const badKey = await fetch(`${fake.url}/api/v3/account?${signed(`timestamp=${now}`)}`, {
      headers: { 'X-MBX-APIKEY': 'other' },
    });
    assert.equal(badKey.status, 401);
    assert.equal((await badKey.json()).code, -2015);
    const stale = await fetch(`${fake.url}/api/v3/account?${signed(`timestamp=${now - 60_000}`)}`, {
      headers: { 'X-MBX-APIKEY': 'key-123456789' },
    });
    assert.equal((await stale.json()).code, -1021);
  });

  it(
    'answers myTrades with the most recent trades unless ' + 'startTime or fromId says where to start, oldest first',
    async () => {
      const trades = [1, 2, 3, 4, 5].map((id) =>
        binanceTrade({
          symbol: 'ETHUSDT',
          id,
          price: '3200.00',
          qty: '0.1',
          isBuyer: id % 2 === 0,
          time: 1_700_000_000_000 + id * 60_000,
        }),
      );
      fake.addAccount({
        apiKey: 'trades-key-1234',
        secret: 'trades-secret-1234',
        balances: [],
        trades: { ETHUSDT: trades },
      });
      const ids = async (query: string) => {
        const response = await fetch(
          `${fake.url}/api/v3/myTrades?${signed(`symbol=ETHUSDT&${query}timestamp=${Date.now()}`, 'trades-secret-1234')}`,
          {
            headers: { 'X-MBX-APIKEY': 'trades-key-1234' },
          },
        );
        assert.equal(response.status, 200);
        return ((await response.json()) as { id: number }[]).map((t) => t.id);
      };
      assert.deepEqual(await ids(''), [1, 2, 3, 4, 5]);
      assert.deepEqual(await ids('limit=2&'), [4, 5], 'the newest two, not the oldest');
      assert.deepEqual(await ids('fromId=2&limit=2&'), [2, 3]);
      assert.deepEqual(await ids(`startTime=${1_700_000_000_000 + 3 * 60_000}&limit=2&`), [3, 4]);
      assert.deepEqual(await ids(`endTime=${1_700_000_000_000 + 3 * 60_000}&limit=2&`), [2, 3]);
    },
  );

  it('refuses a key that may not read with -2015 (401) on signed reading endpoints, like an unknown key', async () => {
    fake.addAccount({
      apiKey: 'blind-key-1234',
      secret: 'blind-secret-1234',
      balances: [],
      trades: {},
      canRead: false,
    });
    for (const query of [`timestamp=${Date.now()}`, `symbol=BTCUSDT&timestamp=${Date.now()}`]) {
      const path = query.startsWith('symbol') ? '/api/v3/myTrades' : '/api/v3/account';
      const response = await fetch(`${fake.url}${path}?${signed(query, 'blind-secret-1234')}`, {
        headers: { 'X-MBX-APIKEY': 'blind-key-1234' },
      });
      assert.equal(response.status, 401, path);
      assert.deepEqual(await response.json(), { code: -2015, msg: 'Invalid API-key, IP, or permissions for action.' });
    }
    assert.equal((await fetch(`${fake.url}/api/v3/ticker/price?symbol=BTCUSDT`)).status, 200);
  });

  it('pages klines by startTime and limit, oldest first', async () => {
    const start = Date.UTC(2026, 0, 1);
    const response = await fetch(`${fake.url}/api/v3/klines?symbol=ETHUSDT&interval=1h&startTime=${start}&limit=3`);
    const rows = (await response.json()) as unknown[][];
    assert.deepEqual(
      rows.map((r) => r[0]),
      [start, start + 3_600_000, start + 7_200_000],
    );
    assert.equal(rows[0]!.length, 12);
  });

  it("charges Binance's weights, which depend on the parameters", async () => {
    const fresh = await startBinanceFake();
    try {
      const used = async (path: string) =>
        Number((await fetch(`${fresh.url}${path}`)).headers.get('x-mbx-used-weight-1m'));
      assert.equal(await used('/api/v3/ticker/24hr?symbol=BTCUSDT'), 2);
      assert.equal(await used('/api/v3/ticker/24hr'), 82, 'every symbol weighs 80');
      assert.equal(await used('/api/v3/ticker/price'), 86);
      assert.equal(await used('/api/v3/depth?symbol=BTCUSDT&limit=100'), 91);
      assert.equal(await used('/api/v3/depth?symbol=BTCUSDT&limit=500'), 116);
    } finally {
      await fresh.close();
    }
  });

  it('injects 429 with Retry-After on demand', async () => {
    fake.fail(429, { code: -1003, msg: 'Too many requests.' }, { retryAfter: 7 });
    const response = await fetch(`${fake.url}/api/v3/ping`);
    assert.equal(response.status, 429);
    assert.equal(response.headers.get('retry-after'), '7');
    assert.equal((await fetch(`${fake.url}/api/v3/ping`)).status, 200);
  });

  it('answers 429 above the weight limit until the minute ends, and bans with 418 an IP that calls on', async () => {
    let now = Date.UTC(2026, 2, 2, 10, 0, 30);
    const fresh = await startBinanceFake({ weightLimit: 50, weightClock: () => now, banSeconds: 300 });
    try {
      const depth = () => fetch(`${fresh.url}/api/v3/depth?symbol=BTCUSDT&limit=1000`);
      assert.equal((await depth()).status, 200, 'weight 50 of 50');
      const limited = await depth();
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get('retry-after'), '30', 'the rest of the minute');
      assert.equal((await limited.json()).code, -1003);
      now += 10_000;
      const banned = await fetch(`${fresh.url}/api/v3/ping`);
      assert.equal(banned.status, 418, 'a call before Retry-After has passed is banned');
      assert.equal(banned.headers.get('retry-after'), '300');
      assert.match((await banned.json()).msg, /IP banned until/);
      now += 60_000;
      assert.equal((await fetch(`${fresh.url}/api/v3/ping`)).status, 418, 'the ban outlasts the minute');
      assert.deepEqual(fresh.rateLimitAnswers, { 429: 1, 418: 2 });
      now += 300_000;
      assert.equal((await fetch(`${fresh.url}/api/v3/ping`)).status, 200);
    } finally {
      await fresh.close();
    }
  });

  it('lets an IP that waited out a 429 call again without a ban', async () => {
    let now = Date.UTC(2026, 2, 2, 10, 0, 50);
    const fresh = await startBinanceFake({ weightLimit: 50, weightClock: () => now });
    try {
      const depth = () => fetch(`${fresh.url}/api/v3/depth?symbol=BTCUSDT&limit=1000`);
      await depth();
      assert.equal((await depth()).status, 429);
      now += 10_000;
      const next = await depth();
      assert.equal(next.status, 200);
      assert.equal(next.headers.get('x-mbx-used-weight-1m'), '50', 'a new minute, counted afresh');
      assert.equal(fresh.rateLimitAnswers[418], 0);
    } finally {
      await fresh.close();
    }
  });

  it('pages myTrades by fromId, and refuses a time window over 24 hours', async () => {
    const fresh = await startBinanceFake();
    try {
      const trades = Array.from({ length: 250 }, (_, i) =>
        binanceTrade({
          symbol: 'ETHUSDT',
          id: 1000 + i * 3,
          price: '3000',
          qty: '1',
          isBuyer: i % 2 === 0,
          time: 1_700_000_000_000 + i * 1000,
        }),
      );
      fresh.addAccount({
        apiKey: 'key-paging-1',
        secret: 'secret-paging-1',
        balances: [],
        trades: { ETHUSDT: trades },
      });
      const get = async (query: string) => {
        const response = await fetch(
          `${fresh.url}/api/v3/myTrades?${signed(`symbol=ETHUSDT&${query}&timestamp=${Date.now()}`, 'secret-paging-1')}`,
          { headers: { 'X-MBX-APIKEY': 'key-paging-1' } },
        );
        return {
          status: response.status,
          body: (await response.json()) as { id: number; code?: number }[] & { code?: number },
        };
      };
      const first = await get('fromId=0&limit=100');
      assert.equal(first.body.length, 100);
      const second = await get(`fromId=${first.body.at(-1)!.id + 1}&limit=100`);
      assert.equal(
        second.body[0]!.id,
        first.body.at(-1)!.id + 3,
        'ids of one account are not contiguous; fromId still continues exactly',
      );
      const wide = await get(`startTime=1700000000000&endTime=${1_700_000_000_000 + 25 * 3_600_000}`);
      assert.equal(wide.status, 400);
      assert.equal(wide.body.code, -1127);
    } finally {
      await fresh.close();
    }
  });
});
