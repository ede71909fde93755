// Where trade syncs start and continue: never a gap, never the same page twice.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { VenueTrade } from './adapters/venue-gateway.ts';
import { nextCursor, startPage } from './trade-cursor.domain.ts';

const trade = (id: string, timestamp: number): VenueTrade => ({
  id,
  symbol: 'BTC/USDT',
  side: 'buy',
  price: '1',
  amount: '1',
  cost: '1',
  fee: null,
  feeCurrency: null,
  timestamp,
});
const horizonStart = new Date('2025-01-01T00:00:00Z');
const none = { maxId: null, newestAt: null };

describe('trade sync cursor', () => {
  it('starts a first sync at the horizon, a later one after the newest stored id on Binance', () => {
    assert.deepEqual(startPage({ venue: 'binance', newest: none, horizonStart, limit: 100 }), {
      since: horizonStart.getTime(),
      limit: 100,
    });
    assert.deepEqual(
      startPage({
        venue: 'binanceus',
        newest: { maxId: '99999999999999999999', newestAt: new Date() },
        horizonStart,
        limit: 5,
      }),
      { fromId: '100000000000000000000', limit: 5 },
      'ids beyond 2^53 stay exact',
    );
  });

  it('continues from the newest trade time on venues without ordered ids, and from `since` when asked', () => {
    const newestAt = new Date('2026-01-02T03:04:05Z');
    assert.deepEqual(startPage({ venue: 'kraken', newest: { maxId: 'TX-1', newestAt }, horizonStart, limit: 50 }), {
      since: newestAt.getTime(),
      limit: 50,
    });
    const since = new Date('2025-06-01T00:00:00Z');
    assert.deepEqual(
      startPage({ venue: 'binance', since, newest: { maxId: '7', newestAt }, horizonStart, limit: 50 }),
      { since: since.getTime(), limit: 50 },
    );
  });

  it('reports more when the page is full and the next cursor after its last trade', () => {
    const page = { fromId: '10', limit: 2 };
    assert.deepEqual(nextCursor('binance', page, [trade('10', 1), trade('12', 2)]), {
      hasMore: true,
      cursor: { fromId: '13', since: null },
    });
    assert.deepEqual(nextCursor('binance', page, []), { hasMore: false, cursor: { fromId: '10', since: null } });
    assert.deepEqual(nextCursor('kraken', { since: 5, limit: 3 }, [trade('a', 7), trade('b', 9)]), {
      hasMore: false,
      cursor: { fromId: null, since: new Date(9) },
    });
    assert.deepEqual(nextCursor('kraken', { since: 5, limit: 3 }, []), {
      hasMore: false,
      cursor: { fromId: null, since: new Date(5) },
    });
  });
});
