// Entries under keys a caller chooses (a pair's candles, an ohlc-range window, a book) are kept in Redis a
// minute, not their stale bound (decision 748): a closed window was kept 24 h, so a day of made-up windows,
// each admitted within half of the venue's minute, filled Redis without bound. Fixed keys keep theirs.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { CALLER_KEYED_KEEP_MS } from '../../../src/modules/market/market-data.ts';
import { withoutRedis } from '../../helpers/services.ts';
import { startMarket, type MarketHarness } from './market-fixtures.ts';

const HOUR = 3_600_000;
const NO_REDIS = withoutRedis('the TTLs asked are those of the Redis keys');

describe('caller-keyed market entries are kept a minute in Redis (decision 748)', { skip: NO_REDIS }, () => {
  const prefix = `test:${randomUUID()}:`;
  let m: MarketHarness;
  let redis: Redis;
  before(async () => {
    m = await startMarket({ cachePrefix: prefix });
    redis = new Redis(process.env.REDIS_URL!, { keyPrefix: prefix });
  });
  after(async () => {
    redis.disconnect();
    await m.stop();
  });

  /** Each market key of this app matching `pattern`, with its TTL in ms. */
  async function ttls(pattern: string): Promise<Map<string, number>> {
    const keys = await redis.keys(`${prefix}market:${pattern}`);
    const found = new Map<string, number>();
    for (const key of keys) found.set(key, await redis.pttl(key.slice(prefix.length)));
    return found;
  }

  it("a closed window, a pair's candles and a book: at most a minute; the symbol list: its own bound", async () => {
    const start = Date.now() - 30 * 24 * HOUR;
    const window = `start=${new Date(start).toISOString()}&end=${new Date(start + 6 * HOUR).toISOString()}`;
    for (const url of [
      `/api/v1/market/ohlc-range?symbol=BTCUSDT&interval=1h&limit=5&${window}`,
      '/api/v1/market/ohlc?symbol=ETHUSDT&interval=1h&limit=5',
      '/api/v1/market/orderbook?symbol=BTCUSDT&depth=5',
    ]) {
      const response = await m.get(url);
      assert.equal(response.status, 200, JSON.stringify(response.body));
    }
    for (const pattern of ['candle-range:*', 'candles:*', 'book:*']) {
      const found = await ttls(pattern);
      assert.equal(found.size, 1, `one ${pattern} key`);
      for (const [key, ttl] of found)
        assert.ok(ttl > 0 && ttl <= CALLER_KEYED_KEEP_MS, `${key} is kept ${ttl} ms, more than a minute`);
    }
    const symbols = await ttls('symbols');
    assert.equal(symbols.size, 1);
    assert.ok([...symbols.values()][0]! > HOUR, 'the symbol list, a fixed key, keeps its 24 h bound');
  });
});
