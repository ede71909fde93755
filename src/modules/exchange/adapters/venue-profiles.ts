// Every venue's profile for the venue budget (decisions 110, 980): its name in answers, what its calls weigh
// per IP and its per-key limits. Binance's spot REST request weights come from Binance's spot API
// documentation, for charging a call to the venue budget before it is sent: the one table for every caller
// of Binance (the ccxt gateway and the market module's client, through the venue's guarded fetch; decision
// 174). binance.us documents the same or lower weights, so the same table is a safe over-estimate there.
// SAPI endpoints are counted by Binance in a budget of their own (X-SAPI-USED-IP-WEIGHT-1M) and weigh nothing.
import { clientOrderIdRule } from '../../../platform/client-order-ids.ts';
import type { VenueWeights } from '../../../platform/venue-budget/guarded-fetch.ts';
import type { VenueProfile } from '../../../platform/venue-budget/venue-budget.ts';
import type { Venue } from '../venues.domain.ts';
import { ipLimitWeights } from './venue-ip-limits.ts';
import { venueKeyLimits, type KrakenCounter } from './venue-key-limits.ts';

/** Weight of a path we do not list: high enough that an unknown call cannot sneak past the limit. */
const UNLISTED = 10;

function symbolsCount(params: URLSearchParams): number | undefined {
  const many = params.get('symbols');
  if (!many) return undefined;
  try {
    const list = JSON.parse(many) as unknown;
    return Array.isArray(list) ? list.length : undefined;
  } catch {
    return undefined;
  }
}

function binanceRequestWeight(url: URL): number {
  const path = url.pathname.replace(/\/+$/, '');
  const params = url.searchParams;
  if (path.startsWith('/sapi/') || path.startsWith('/wapi/')) return 0;
  switch (path) {
    case '/api/v3/ping':
    case '/api/v3/time':
      return 1;
    case '/api/v3/exchangeInfo':
      return 20;
    case '/api/v3/account':
      return 20;
    case '/api/v3/myTrades':
      return params.has('orderId') ? 5 : 20;
    case '/api/v3/klines':
    case '/api/v3/uiKlines':
    case '/api/v3/avgPrice':
      return 2;
    case '/api/v3/ticker/price':
    case '/api/v3/ticker/bookTicker':
      return params.has('symbol') ? 2 : 4;
    case '/api/v3/ticker/24hr': {
      if (params.has('symbol')) return 2;
      const count = symbolsCount(params);
      if (count === undefined) return 80;
      return count <= 20 ? 2 : count <= 100 ? 40 : 80;
    }
    case '/api/v3/depth': {
      const limit = Number(params.get('limit') ?? 100);
      return limit <= 100 ? 5 : limit <= 500 ? 25 : limit <= 1000 ? 50 : 250;
    }
    default:
      return UNLISTED;
  }
}

/** The REQUEST_WEIGHT per minute an exchangeInfo answer states, if it states one. */
function binanceWeightLimit(body: unknown): number | undefined {
  const limits = (body as { rateLimits?: unknown } | null)?.rateLimits;
  if (!Array.isArray(limits)) return undefined;
  const weight = limits.find(
    (r: { rateLimitType?: unknown; interval?: unknown; intervalNum?: unknown }) =>
      r && r.rateLimitType === 'REQUEST_WEIGHT' && r.interval === 'MINUTE' && Number(r.intervalNum) === 1,
  ) as { limit?: unknown } | undefined;
  const limit = Number(weight?.limit);
  return Number.isFinite(limit) && limit > 0 ? limit : undefined;
}

function binanceWeights(defaultLimit: number): VenueWeights {
  return {
    defaultLimit,
    weigh: binanceRequestWeight,
    usedWeight(headers) {
      const raw = headers.get('x-mbx-used-weight-1m');
      const used = Number(raw);
      return raw !== null && raw.trim() !== '' && Number.isFinite(used) ? used : undefined;
    },
    limit: { statedBy: (url) => url.pathname.endsWith('/api/v3/exchangeInfo'), read: binanceWeightLimit },
  };
}

/**
 * What a signed request may wait for the budget (decision 1330): the venue's receive window less its second
 * of clock lead (client-order-ids.ts) and a second for the way there.
 */
const signedWaitMs = (venue: Venue) => clientOrderIdRule(venue).receiveWindowMs - 2_000;

/** A loopback address: a fake of the venue in tests or a bench, never the venue itself. */
function atLoopback(url: string | undefined): boolean {
  if (url === undefined) return false;
  try {
    const host = new URL(url).hostname;
    return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}

/**
 * How each venue is named in answers and, for the Binance venues, what their calls weigh (their
 * documented per-minute limit until exchangeInfo tells the real one). Other venues' calls weigh one
 * each against their documented per-IP minute and short window (venue-ip-limits.ts, decisions 980,
 * 1040). `EXCHANGE_RATE_LIMIT=false` (`rateLimit`) lifts those only for a venue whose address is a
 * loopback one (its fake in tests and benches): a venue reached at its own address is always paced, so
 * that no setting lets one user draw the 429 that pauses the venue for everyone (decision 1041). Their
 * limits per key are apart (venue-key-limits.ts, decision 255).
 */
export function venueProfile(
  venue: Venue,
  settings: { krakenCounter: KrakenCounter; rateLimit: boolean; apiUrls?: Readonly<Record<string, string>> },
): VenueProfile {
  const signed = { signedWaitMs: signedWaitMs(venue) };
  if (venue === 'binance') return { label: 'Binance', weights: binanceWeights(6000), ...signed };
  if (venue === 'binanceus') return { label: 'Binance.US', weights: binanceWeights(1200), ...signed };
  const paced = settings.rateLimit || !atLoopback(settings.apiUrls?.[venue]);
  const weights = paced ? ipLimitWeights(venue) : undefined;
  return { label: venue, ...(weights ? { weights } : {}), keyLimits: venueKeyLimits(venue, settings), ...signed };
}
