// Where a ccxt instance sends its calls: every URL of a venue's `urls.api` rewritten to the configured
// base (the loopback fakes in tests, a proxy or a regional host in production).
import type { Venue } from '../venues.domain.ts';

/** The bases calls go to (part of the clients' settings). */
export interface VenueUrlSettings {
  binanceApiUrl: string;
  binanceUsApiUrl: string;
  /** ccxt id → base URL, for the other venues. */
  apiUrls: Readonly<Record<string, string>>;
}

const DEFAULT_HOSTS: Partial<Record<Venue, string>> = {
  binance: 'https://api.binance.com',
  binanceus: 'https://api.binance.us',
};

/** Rewrites every URL string under `urls.api`, however deeply the venue nests them. */
export function rewriteUrls(node: unknown, rewrite: (url: string) => string): void {
  if (!node || typeof node !== 'object') return;
  const record = node as Record<string, unknown>;
  for (const [key, value] of Object.entries(record)) {
    if (typeof value === 'string') record[key] = rewrite(value);
    else rewriteUrls(value, rewrite);
  }
}

/** The rewrite for one venue: prefix replacement for the Binance hosts, a new origin for others. */
export function urlRewriter(
  venue: string,
  hostname: string | undefined,
  settings: VenueUrlSettings,
): ((url: string) => string) | undefined {
  const binanceTarget =
    venue === 'binance' ? settings.binanceApiUrl : venue === 'binanceus' ? settings.binanceUsApiUrl : undefined;
  const defaultHost = DEFAULT_HOSTS[venue as Venue];
  if (binanceTarget !== undefined && defaultHost !== undefined) {
    if (binanceTarget === defaultHost) return undefined;
    return (url) => url.split(defaultHost).join(binanceTarget);
  }
  const target = settings.apiUrls[venue];
  if (!target) return undefined;
  return (url) => {
    const concrete = hostname ? url.split('{hostname}').join(hostname) : url;
    try {
      const parsed = new URL(concrete);
      const path = parsed.pathname === '/' ? '' : parsed.pathname;
      return `${target}${path}${parsed.search}`;
    } catch {
      return url;
    }
  };
}
