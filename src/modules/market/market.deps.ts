// What the market module uses from outside it: the instance's SSE registry and the exchange
// module's guarded way to Binance (its VenueAccess port). app.ts passes them in.
import type { SseRegistry } from '../../platform/http/sse.ts';
import type { VenueAccess } from '../exchange/index.ts';

export interface MarketDeps {
  sse: SseRegistry;
  /** The exchange module's way to Binance: one budget, weight table and breaker for every caller. */
  venueAccess: (venue: 'binance') => VenueAccess;
}
