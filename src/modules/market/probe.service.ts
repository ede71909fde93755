// Whether Binance answers, for the dashboard: the venue's cheapest call, through the same client as
// the data calls, so the weight budget and an open breaker hold for it too. It never throws.
import { AppError } from '../../platform/http/errors.ts';

/** The answer of `probe()`, like the tracker's health: whether Binance answered, how fast, or why not. */
export interface MarketProbe {
  reachable: boolean;
  latencyMs: number | null;
  detail: string | null;
}

/** `ping` is Binance's `GET /api/v3/ping` (weight 1); null with the simulated source, which has nothing to reach. */
export function createProbeService(deps: { ping: (() => Promise<unknown>) | null }) {
  const { ping } = deps;
  return {
    /** Null with the simulated source. An open breaker (after a 429 or 418) answers unreachable, uncalled. */
    async probe(): Promise<MarketProbe | null> {
      if (!ping) return null;
      const started = performance.now();
      try {
        await ping();
        return { reachable: true, latencyMs: Math.round((performance.now() - started) * 100) / 100, detail: null };
      } catch (error) {
        const detail =
          error instanceof AppError && typeof error.detail === 'string' ? error.detail : 'Binance could not be checked';
        return { reachable: false, latencyMs: null, detail };
      }
    },
  };
}
