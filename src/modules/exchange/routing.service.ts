// Where to buy a base with a quote: every venue at once, each bounded by the probe timeout, so one
// slow or unreachable venue is reported as unavailable instead of delaying the answer.
import type { Clock } from '../../platform/clock.ts';
import { AppError } from '../../platform/http/errors.ts';
import type { VenueGateway } from './adapters/venue-gateway.ts';
import { rankRoutes, resolveSymbol, type ExcludedRoute, type Route, type RouteCandidate } from './markets.domain.ts';
import { venueWithin } from './timeouts.ts';
import type { UsdPrices } from './usd-prices.ts';
import { VENUES, type Venue } from './venues.domain.ts';

type Probe =
  | { kind: 'listed'; candidate: RouteCandidate }
  | { kind: 'not_listed'; exchange: Venue }
  | { kind: 'unavailable'; exchange: Venue; reason: string };

/** Where buying base with quote is cheapest after fees, and the venues that could not say. */
export interface RouteAnswer {
  base: string;
  quote: string;
  size: number | null;
  quoteSize: number | null;
  /** Cheapest effective price first. */
  routes: Route[];
  excluded: ExcludedRoute[];
  unavailable: { venue: Venue; reason: string }[];
  notListed: Venue[];
  checkedAt: Date;
}

export function createRoutingService(deps: {
  gateway: Pick<VenueGateway, 'ready' | 'markets' | 'tickers'>;
  prices: Pick<UsdPrices, 'remember'>;
  clock: Clock;
  /** How long one venue may hold up the answer. */
  probeTimeoutMs: number;
}) {
  const { gateway, probeTimeoutMs } = deps;

  async function probe(venue: Venue, base: string, quote: string, user: string | undefined): Promise<Probe> {
    const work = async (): Promise<Probe> => {
      const options = { timeoutMs: probeTimeoutMs };
      const market = resolveSymbol(await gateway.markets(venue, options), `${base}/${quote}`);
      if (!market?.active) return { kind: 'not_listed', exchange: venue };
      // The reader's share of each venue's minute pays for the tickers (decision 740).
      const [ticker] = await gateway.tickers(venue, [market.symbol], { ...options, user });
      if (!ticker)
        return { kind: 'unavailable', exchange: venue, reason: `${venue} returned no ticker for ${market.symbol}` };
      return { kind: 'listed', candidate: { exchange: venue, market, ticker } };
    };
    try {
      // The probe's bound is the venue's: a first route's load of the venue library is not in it (decision 700).
      await gateway.ready(venue);
      return await venueWithin(work(), probeTimeoutMs, venue);
    } catch (error) {
      const reason = error instanceof AppError ? String(error.detail) : `${venue} failed unexpectedly`;
      return { kind: 'unavailable', exchange: venue, reason };
    }
  }

  return {
    async route(query: {
      base: string;
      quote: string;
      size?: number;
      quoteSize?: number;
      /** The signed-in reader (decision 740). */
      user?: string;
    }): Promise<RouteAnswer> {
      const base = query.base.trim().toUpperCase();
      const quote = query.quote.trim().toUpperCase();
      const probes = await Promise.all(VENUES.map((venue) => probe(venue, base, quote, query.user)));
      const candidates = probes.flatMap((p) => (p.kind === 'listed' ? [p.candidate] : []));
      await deps.prices.remember(
        candidates.map((c) => ({ base: c.market.base, quote: c.market.quote, last: c.ticker.last })),
      );
      const { routes, excluded } = rankRoutes(candidates, { size: query.size, quoteSize: query.quoteSize });
      return {
        base,
        quote,
        size: query.size ?? null,
        quoteSize: query.quoteSize ?? null,
        routes,
        excluded,
        unavailable: probes.flatMap((p) => (p.kind === 'unavailable' ? [{ venue: p.exchange, reason: p.reason }] : [])),
        notListed: probes.flatMap((p) => (p.kind === 'not_listed' ? [p.exchange] : [])),
        checkedAt: deps.clock.now(),
      };
    },
  };
}
