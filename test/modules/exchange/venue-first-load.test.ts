// A venue check's bound is the venue's answer's: a process's first check loads the venue library
// (ccxt), one block of the event loop of seconds on a busy machine, before the bound starts (decision 700).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { busyMachineCcxt, SLOW_CCXT_LOAD_MS } from '../../helpers/slow-ccxt.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';
import { startVenueFakes, type VenueFakes } from './venue-fakes.ts';

describe("a process's first venue checks, with a slow venue library load", () => {
  let fakes: VenueFakes;
  before(async () => {
    fakes = await startVenueFakes();
  });
  after(() => fakes?.close());

  /** A fresh app, its venue library not loaded, whose checks wait 3 s for a venue, as by default. */
  async function freshApp(): Promise<TestApp> {
    return buildTestApp({
      env: fakes.env({ EXCHANGE_PROBE_TIMEOUT_MS: '3000' }),
      modules: { loadCcxt: busyMachineCcxt },
    });
  }

  it("a venue's health reads healthy: the load is not in the check's 3 s", async () => {
    const t = await freshApp();
    try {
      const started = performance.now();
      const response = await t.app.inject({ method: 'GET', url: '/api/exchange/binance/health' });
      assert.ok(performance.now() - started >= SLOW_CCXT_LOAD_MS, 'the load happened inside the check');
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().status, 'healthy', response.body);
    } finally {
      await t.close();
    }
  });
});
