// Where a market's trade sync starts and where the next one will (docs/decisions/111). Pure: the
// newest stored trade and the clock come in.
import type { TradePage, VenueTrade } from './adapters/venue-gateway.ts';
import type { Venue } from './venues.domain.ts';

/** Venues whose trade ids count up per market, so that `fromId` = last id + 1 never skips nor repeats. */
const ID_CURSOR_VENUES: ReadonlySet<Venue> = new Set<Venue>(['binance', 'binanceus']);

/**
 * The most trades one page of a market may ask for, where the venue's limits are tighter than the
 * API's 1,000: Kraken's call counter allows a few TradesHistory calls in a row (2 points each), and
 * a page of 50 costs two (decision 206).
 */
const PAGE_MAX: Partial<Record<Venue, number>> = { kraken: 50 };

export interface Cursor {
  fromId: string | null;
  since: Date | null;
}

function usesIdCursor(venue: Venue): boolean {
  return ID_CURSOR_VENUES.has(venue);
}

const nextId = (id: string) => (BigInt(id) + 1n).toString();
const isNumeric = (id: string | null): id is string => id !== null && /^[0-9]{1,30}$/.test(id);

/**
 * The page to ask for: from an explicit `since`; else after the newest stored trade (Binance: the
 * id after it; elsewhere: from its time on, the stored trades of that time skipped by id); else,
 * on a first sync, from the horizon on.
 */
export function startPage(input: {
  venue: Venue;
  since?: Date;
  newest: { maxId: string | null; newestAt: Date | null; idsAtNewest?: readonly string[] };
  horizonStart: Date;
  limit: number;
}): TradePage {
  const { venue, since, newest } = input;
  const limit = Math.min(input.limit, PAGE_MAX[venue] ?? input.limit);
  if (since) return { since: since.getTime(), limit };
  if (usesIdCursor(venue) && isNumeric(newest.maxId)) return { fromId: nextId(newest.maxId), limit };
  // The trades stored at the newest time come back: skipped by id, so that a burst of more than `limit`
  // trades in one millisecond is walked past instead of answered again each time (decision 891).
  if (newest.newestAt)
    return {
      since: newest.newestAt.getTime(),
      limit,
      ...(newest.idsAtNewest?.length ? { known: newest.idsAtNewest } : {}),
    };
  return { since: input.horizonStart.getTime(), limit };
}

/**
 * Whether more trades may wait (the venue filled the page), and where the next sync of the market
 * starts: after the page's last trade, or where this one started when the page was empty.
 */
export function nextCursor(
  venue: Venue,
  page: TradePage,
  fetched: readonly VenueTrade[],
): { hasMore: boolean; cursor: Cursor } {
  const hasMore = fetched.length >= page.limit;
  const last = fetched.at(-1);
  if (usesIdCursor(venue)) {
    const lastId = fetched
      .map((t) => t.id)
      .filter(isNumeric)
      .reduce<string | null>((max, id) => (max === null || BigInt(id) > BigInt(max) ? id : max), null);
    if (lastId !== null) return { hasMore, cursor: { fromId: nextId(lastId), since: null } };
  } else if (last?.timestamp != null) {
    const newest = Math.max(...fetched.map((t) => t.timestamp ?? 0));
    return { hasMore, cursor: { fromId: null, since: new Date(newest) } };
  }
  return {
    hasMore,
    cursor: {
      fromId: page.fromId ?? null,
      since: page.fromId === undefined && page.since !== undefined ? new Date(page.since) : null,
    },
  };
}
