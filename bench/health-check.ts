// What one venue health check costs the process (decision 800): CPU and bytes allocated per check, the
// venue library loaded and the check's first run done, against the Binance fake on loopback. Allocation is
// read as the heap's growth over the checks with a young generation large enough that no collection runs
// among them (the run says how many did; with any, the figure is not read). The fake runs in this process:
// its share of the CPU is in the figure, the same before and after.
//   node --expose-gc --max-semi-space-size=256 --import tsx bench/health-check.ts [checks]
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { createMemoryCache } from '../src/platform/cache/cache.ts';
import { systemClock } from '../src/platform/clock.ts';
import { createVenueBudgets } from '../src/platform/venue-budget/venue-budget.ts';
import { createEgress } from '../src/platform/venue-budget/egress.ts';
import { CcxtVenueGateway } from '../src/modules/exchange/adapters/ccxt-venue-gateway.ts';
import { createHealthService } from '../src/modules/exchange/health.service.ts';
import { startBinanceFake } from '../test/fakes/binance.ts';
import { registerBinanceSapi } from '../test/fakes/binance-sapi.ts';

const checks = Number(process.argv[2] ?? 20);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const fake = await startBinanceFake();
registerBinanceSapi(fake);
const budgets = createVenueBudgets({
  cache: createMemoryCache(),
  clock: systemClock,
  settings: { share: 0.8, maxWaitMs: 2_000, egress: 'bench-health', userShare: 1 },
});
const gateway = new CcxtVenueGateway({
  settings: { binanceApiUrl: fake.url, binanceUsApiUrl: '', apiUrls: {}, rateLimit: false, timeoutMs: 5_000 },
  cache: createMemoryCache(),
  egress: createEgress(budgets, fetch),
  budget: (venue) => budgets.venue(venue),
});
const health = createHealthService({
  gateway,
  cache: createMemoryCache(),
  clock: systemClock,
  probeTimeoutMs: 3_000,
  budget: (venue) => budgets.venue(venue),
});

async function check(): Promise<void> {
  const answer = await health.one('binance', true);
  if (answer.status !== 'healthy') throw new Error(`binance read as ${answer.status}: ${answer.error}`);
}

// The library's load and the first check, then a few more to warm the code paths.
for (let n = 0; n < 5; n++) await check();

let collections = 0;
const observer = new PerformanceObserver((list) => {
  collections += list.getEntries().length;
});
gc();
observer.observe({ entryTypes: ['gc'] });
const heapBefore = getHeapStatistics().used_heap_size;
const cpuBefore = process.cpuUsage();
const wallBefore = performance.now();
for (let n = 0; n < checks; n++) await check();
const wall = performance.now() - wallBefore;
const cpu = process.cpuUsage(cpuBefore);
const heapAfter = getHeapStatistics().used_heap_size;
// Entries are delivered asynchronously: one turn for those of the checks.
await new Promise((resolve) => setImmediate(resolve));
observer.disconnect();

const perCheck = (value: number) => value / checks;
console.log(
  JSON.stringify({
    checks,
    cpuMsPerCheck: Number(perCheck((cpu.user + cpu.system) / 1000).toFixed(2)),
    wallMsPerCheck: Number(perCheck(wall).toFixed(2)),
    allocatedKiBPerCheck: collections === 0 ? Number(perCheck((heapAfter - heapBefore) / 1024).toFixed(0)) : null,
    collections,
  }),
);
await fake.close();
