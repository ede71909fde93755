// A venue's health check asks the venue through one kept instance per venue and timeout, built before
// the check's bound starts (decision 800): a ccxt constructor is milliseconds of CPU on a quiet machine and
// seconds on a busy one, and a check that built its own inside its bound read a healthy venue as silent.
// The venue library is given as a busy machine's: ccxt itself, its Binance constructor holding the loop
// longer than the check's bound.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createMemoryCache } from '../../../src/platform/cache/cache.ts';
import { systemClock } from '../../../src/platform/clock.ts';
import { createVenueBudgets } from '../../../src/platform/venue-budget/venue-budget.ts';
import { createEgress } from '../../../src/platform/venue-budget/egress.ts';
import { CcxtVenueGateway } from '../../../src/modules/exchange/adapters/ccxt-venue-gateway.ts';
import type { CcxtModule } from '../../../src/modules/exchange/adapters/ccxt-clients.ts';
import { createHealthService } from '../../../src/modules/exchange/health.service.ts';
import { startBinanceFake, type BinanceFake } from '../../fakes/binance.ts';
import { registerBinanceSapi } from '../../fakes/binance-sapi.ts';

/** The check's bound on the venue's answer. */
const PROBE_TIMEOUT_MS = 1_500;
/** How long one Binance instance's construction holds the loop: longer than the bound. */
const SLOW_BUILD_MS = 2_000;

/** ccxt, its Binance constructor as slow as a busy machine's; for the clients' `load`. */
async function slowBuildingCcxt(): Promise<CcxtModule> {
  const ccxt = await import('ccxt');
  class SlowBinance extends ccxt.binance {
    constructor(config?: Record<string, unknown>) {
      super(config);
      const until = performance.now() + SLOW_BUILD_MS;
      while (performance.now() < until) {
        // One synchronous block, as a construction is on a busy machine.
      }
    }
  }
  return { ...ccxt, binance: SlowBinance } as unknown as CcxtModule;
}

describe("a venue's health checks", () => {
  let fake: BinanceFake;
  let gateway: CcxtVenueGateway;
  let budgets: ReturnType<typeof createVenueBudgets>;
  before(async () => {
    fake = await startBinanceFake();
    registerBinanceSapi(fake);
    budgets = createVenueBudgets({
      cache: createMemoryCache(),
      clock: systemClock,
      settings: { share: 0.8, maxWaitMs: 2_000, egress: 'health-instance', userShare: 1 },
    });
    gateway = new CcxtVenueGateway({
      settings: { binanceApiUrl: fake.url, binanceUsApiUrl: '', apiUrls: {}, rateLimit: false, timeoutMs: 5_000 },
      cache: createMemoryCache(),
      egress: createEgress(budgets, fetch),
      budget: (venue) => budgets.venue(venue),
      load: slowBuildingCcxt,
    });
  });
  after(async () => {
    await fake?.close();
  });

  it('read a healthy venue as healthy, building no instance inside the bound and none after the first check', async () => {
    const health = createHealthService({
      gateway,
      cache: createMemoryCache(),
      clock: systemClock,
      probeTimeoutMs: PROBE_TIMEOUT_MS,
      budget: (venue) => budgets.venue(venue),
    });
    const first = await health.one('binance', true);
    assert.equal(first.status, 'healthy', String(first.error));
    const built = gateway.clients.built();
    for (let n = 0; n < 3; n++) {
      const again = await health.one('binance', true);
      assert.equal(again.status, 'healthy', String(again.error));
      assert.equal(again.cached, false, 'asked of the venue again');
    }
    assert.equal(gateway.clients.built(), built, 'no instance built for the later checks');
    assert.equal(fake.countRequests('/sapi/v1/system/status'), 4, 'each check asked the venue');
  });
});
