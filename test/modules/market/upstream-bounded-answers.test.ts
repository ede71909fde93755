// An upstream's answer is read up to UPSTREAM_MAX_BODY_BYTES (decision 1042): a larger one is answered 502
// and counted as the upstream's failure, instead of parsed whole.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UPSTREAM_MAX_BODY_BYTES } from '../../../src/modules/market/adapters/upstream-client.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { startEndlessServer, type EndlessServer } from '../../fakes/endless-body.ts';
import { startMarket, type MarketHarness } from './market-fixtures.ts';

describe("an upstream's answer is read within a bound", () => {
  let endless: EndlessServer;
  let m: MarketHarness;
  before(async () => {
    // A 200 that starts as CoinGecko's list of coins and never ends.
    endless = await startEndlessServer(200, '[{"id":"bitcoin","symbol":"btc","name":"');
    m = await startMarket({
      clock: fixedClock('2026-03-02T10:00:00.000Z'),
      // Long enough to read the bound on a busy machine: what is tested is the bound, not the timeout.
      env: { COINGECKO_API_URL: endless.url, MARKET_UPSTREAM_TIMEOUT_MS: '30000' },
    });
  });
  after(async () => {
    await m.stop();
    await endless.close();
  });

  it('an answer without end: 502 naming the bound, and the failure is on record', async () => {
    const top = await m.get('/api/v1/market/top');
    assert.equal(top.status, 502, JSON.stringify(top.body));
    assert.deepEqual(top.body, { detail: `CoinGecko answered more than ${UPSTREAM_MAX_BODY_BYTES} bytes` });
    // The rest was abandoned: the venues' transport stops at the bound as the answer arrives (decision 1140).
    assert.equal(endless.completed, 0);
    assert.ok(endless.sent < 2 * UPSTREAM_MAX_BODY_BYTES, `${endless.sent} bytes written`);
    const { body } = await m.get<{ upstreams: Record<string, Record<string, unknown>> }>('/api/v1/market/status');
    assert.equal(body.upstreams.coingecko!.last_error, `CoinGecko answered more than ${UPSTREAM_MAX_BODY_BYTES} bytes`);
  });
});
