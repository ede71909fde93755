// The fetch every ccxt instance sends through: each request is charged to the venue's shared weight
// budget before it leaves (src/platform/venue-budget, docs/decisions/110), the venue's own count
// corrects it after, exchangeInfo's rateLimits set the limit, and a 429 or 418 pauses every caller
// of the venue until its Retry-After. ccxt rethrows what this fetch throws unchanged, so a refusal
// reaches the gateway as the BudgetRefusal it is (503 with Retry-After); nothing was sent.
import { binanceRequestWeight, binanceWeightLimit } from '../../../platform/venue-budget/binance-weights.ts';
import type { VenueBudget } from '../../../platform/venue-budget/venue-budget.ts';
import { retryAfterMs } from '../../../platform/http/retry-after.ts';

/** When a 429 or 418 carries no Retry-After: a 429's window is the minute, a ban lasts at least two. */
const DEFAULT_PAUSE_MS: Record<number, number> = { 429: 60_000, 418: 120_000 };

/** Binance venues are weighed by the documented table; other venues one per request (breaker only). */
export function budgetedFetch(budget: VenueBudget, base: typeof fetch, options: { binance: boolean }): typeof fetch {
  return async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const weight = options.binance ? binanceRequestWeight(url) : 1;
    await budget.acquire(weight);
    let response: Response;
    try {
      response = await base(input, init);
    } catch (error) {
      // Refused or unreachable: nothing arrived, nothing is owed. A timeout may have arrived: kept.
      const name = (error as Error | undefined)?.name;
      if (name !== 'AbortError' && name !== 'TimeoutError') await budget.release(weight).catch(() => undefined);
      throw error;
    }
    if (response.status === 429 || response.status === 418) {
      await budget.trip(response.status, retryAfterMs(response.headers) ?? DEFAULT_PAUSE_MS[response.status]!).catch(() => undefined);
    }
    if (options.binance) {
      const used = Number(response.headers.get('x-mbx-used-weight-1m'));
      if (response.headers.has('x-mbx-used-weight-1m') && Number.isFinite(used)) await budget.settle(used).catch(() => undefined);
      if (response.ok && url.pathname.endsWith('/api/v3/exchangeInfo')) {
        const limit = binanceWeightLimit(await response.clone().json().catch(() => undefined));
        if (limit !== undefined) budget.setLimit(limit);
      }
    }
    return response;
  };
}
